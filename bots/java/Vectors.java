// protocol/vectors/ (its README.md) through the Java bot's handle() and reply writers:
// `./run.sh --vectors DIR`. Prints `reply NAME HEX` per reply and `ok ...`, or `FAIL ...` lines (exit 1).
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.msgpack.core.MessagePack;
import org.msgpack.value.Value;

final class Vectors {
    private Vectors() {}

    static List<Map<Value, Value>> items(Map<Value, Value> root, String key) {
        List<Map<Value, Value>> out = new ArrayList<>();
        Value list = Bot.get(root, key);
        if (list != null && list.isArrayValue()) for (Value v : list.asArrayValue()) out.add(Bot.mapOf(v));
        return out;
    }

    static String str(Map<Value, Value> m, String key) {
        Value v = Bot.get(m, key);
        return v != null && v.isStringValue() ? v.asStringValue().asString() : "";
    }

    static long num(Map<Value, Value> m, String key) {
        Value v = Bot.get(m, key);
        return v != null && v.isIntegerValue() ? v.asIntegerValue().toLong() : 0;
    }

    static byte[] bytes(Map<Value, Value> v) {
        return HexFormat.of().parseHex(str(v, "hex"));
    }

    static int run(String dir) throws IOException {
        Map<Value, Value> root = Bot.mapOf(
            MessagePack.newDefaultUnpacker(Files.readAllBytes(Path.of(dir, "messages.msgpack"))).unpackValue());
        List<String> failures = new ArrayList<>();
        for (Map<Value, Value> v : items(root, "requests")) {
            // Bot.java reads seq, legal.actions, legal.max_discards and state.cards: those are checked.
            Map<Value, Value> msg = Bot.unpack(bytes(v)), read = Bot.mapOf(Bot.get(v, "read"));
            Map<Value, Value> state = Bot.mapOf(Bot.get(msg, "state")), legal = Bot.mapOf(Bot.get(msg, "legal"));
            boolean ok = Bot.seqOf(msg) == num(read, "seq") && Bot.typeOf(msg).equals(str(read, "type"))
                && Bot.get(state, "cards").equals(Bot.get(read, "cards"))
                && Bot.get(legal, "actions").equals(Bot.get(read, "actions"))
                && num(legal, "max_discards") == num(read, "max_discards");
            Bot.Handled h = Bot.handle(bytes(v));
            Map<Value, Value> reply = h.reply() == null ? null : Bot.unpack(h.reply());
            String kind = str(read, "type").equals("act") ? "action" : "discard";
            if (!ok || reply == null || !str(reply, "type").equals(kind) || num(reply, "seq") != num(read, "seq"))
                failures.add("request " + str(v, "name"));
        }
        for (Map<Value, Value> v : items(root, "notifications")) {
            Bot.Handled h = Bot.handle(bytes(v));
            boolean exit = Bot.get(v, "exit").asBooleanValue().getBoolean();
            if (h.reply() != null || h.exit() != exit) failures.add("notification " + str(v, "name"));
        }
        for (Map<Value, Value> v : items(root, "bad_requests")) {
            Bot.Handled h = Bot.handle(bytes(v));
            if (h.reply() != null || h.exit()) failures.add("bad request (not ignored) " + str(v, "name"));
        }
        for (Map<Value, Value> v : items(root, "replies")) {
            Map<Value, Value> d = Bot.mapOf(Bot.get(v, "decision"));
            byte[] data;
            if (Bot.get(d, "cards") != null) {
                List<String> cards = new ArrayList<>();
                for (Value c : Bot.get(d, "cards").asArrayValue()) cards.add(c.asStringValue().asString());
                data = Bot.discardReply(num(d, "seq"), cards);
            } else {
                data = Bot.actionReply(num(d, "seq"), str(d, "action"), num(d, "amount"));
            }
            // msgpack-java's map values compare by content, integers by value whatever their width.
            if (!Bot.get(v, "value").equals(MessagePack.newDefaultUnpacker(data).unpackValue()))
                failures.add("reply (not the expected map) " + str(v, "name"));
            System.out.println("reply " + str(v, "name") + " " + HexFormat.of().formatHex(data));
        }
        for (String f : failures) System.err.println("FAIL " + f);
        if (!failures.isEmpty()) return 1;
        System.out.println("ok messages");
        return 0;
    }
}
