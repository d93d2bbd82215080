// A complete poker bot in Java: the starter for Java authors (protocol/PROTOCOL.md is the contract).
//
// Talks to the referee over ZeroMQ through libzmq's Java binding (Debian's libzmq-java: a DEALER
// socket on HARNESS_ENDPOINT; pure-Java JeroMQ cannot reach ipc://) in MessagePack maps
// (msgpack-java's msgpack-core). It says hello with HARNESS_SECRET, then answers every request:
//   act  -> "check" if it is legal, else "call" (never folds, never raises);
//   draw -> stands pat (throws nothing away).
// It exits on match_end or a fatal error. Build: make -C bots/java; run: bots/java/run.sh.
// Replace decideAction() and decideDiscards() with your own strategy.
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.value.Value;
import org.msgpack.value.ValueFactory;
import org.zeromq.ZMQ;

public final class Bot {
    static final int PROTOCOL_VERSION = 1;

    static Value get(Map<Value, Value> map, String key) {
        return map == null ? null : map.get(ValueFactory.newString(key));
    }

    static Map<Value, Value> mapOf(Value v) {
        return v != null && v.isMapValue() ? v.asMapValue().map() : null;
    }

    /** Strategy, betting: check when it is free, else call. */
    static String decideAction(Map<Value, Value> legal) {
        Value actions = get(legal, "actions");
        if (actions != null && actions.isArrayValue())
            for (Value a : actions.asArrayValue())
                if (a.isStringValue() && a.asStringValue().asString().equals("check")) return "check";
        return "call";
    }

    /** Strategy, the draw: the cards to throw away (none: stand pat). */
    static List<String> decideDiscards(List<String> cards, int maxDiscards) {
        return new ArrayList<>();
    }

    public static void main(String[] args) throws IOException {
        String endpoint = System.getenv("HARNESS_ENDPOINT");
        String secret = System.getenv("HARNESS_SECRET");
        String name = System.getenv().getOrDefault("HARNESS_BOT_NAME", "javabot");
        if (endpoint == null || secret == null) {
            System.err.println("HARNESS_ENDPOINT and HARNESS_SECRET must be set (the harness starts this bot)");
            System.exit(2);
        }
        ZMQ.Context ctx = ZMQ.context(1);
        ZMQ.Socket sock = ctx.socket(ZMQ.DEALER);
        sock.setLinger(0);
        sock.setReceiveTimeOut(60000); // exit if the referee says nothing for a minute
        sock.connect(endpoint);

        MessageBufferPacker hello = MessagePack.newDefaultBufferPacker();
        hello.packMapHeader(4)
            .packString("type").packString("hello")
            .packString("v").packInt(PROTOCOL_VERSION)
            .packString("secret").packString(secret)
            .packString("name").packString(name);
        sock.send(hello.toByteArray(), 0);

        int status = 0;
        while (true) {
            byte[] data = sock.recv(0);
            if (data == null) { // timeout: the referee is gone
                status = 1;
                break;
            }
            Map<Value, Value> msg;
            try {
                msg = mapOf(MessagePack.newDefaultUnpacker(data).unpackValue());
            } catch (IOException e) {
                continue;
            }
            if (msg == null) continue;
            Value typeValue = get(msg, "type");
            String type = typeValue != null && typeValue.isStringValue() ? typeValue.asStringValue().asString() : "";
            Map<Value, Value> legal = mapOf(get(msg, "legal"));
            Map<Value, Value> state = mapOf(get(msg, "state"));
            long seq = get(msg, "seq") != null && get(msg, "seq").isIntegerValue()
                ? get(msg, "seq").asIntegerValue().toLong() : 0;
            if ((type.equals("act") || type.equals("draw")) && (sock.getEvents() & ZMQ.Poller.POLLIN) != 0) {
                // PROTOCOL.md section 8: a message queued behind a request means it timed out; skip it
                System.err.println("skipped request " + seq + ": it timed out while this bot was busy");
                continue;
            }
            if (type.equals("act")) {
                MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
                p.packMapHeader(5)
                    .packString("type").packString("action")
                    .packString("v").packInt(PROTOCOL_VERSION)
                    .packString("seq").packLong(seq)
                    .packString("action").packString(decideAction(legal))
                    .packString("amount").packInt(0);
                sock.send(p.toByteArray(), 0);
            } else if (type.equals("draw")) {
                List<String> cards = new ArrayList<>();
                Value held = get(state, "cards");
                if (held != null && held.isArrayValue())
                    for (Value c : held.asArrayValue()) cards.add(c.asStringValue().asString());
                Value max = get(legal, "max_discards");
                List<String> out = decideDiscards(cards, max != null && max.isIntegerValue() ? max.asIntegerValue().toInt() : 0);
                MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
                p.packMapHeader(4)
                    .packString("type").packString("discard")
                    .packString("v").packInt(PROTOCOL_VERSION)
                    .packString("seq").packLong(seq)
                    .packString("cards").packArrayHeader(out.size());
                for (String c : out) p.packString(c);
                sock.send(p.toByteArray(), 0);
            } else if (type.equals("match_end")) {
                break;
            } else if (type.equals("error")) {
                Value text = get(msg, "message"), fatal = get(msg, "fatal");
                if (text != null) System.err.println("referee: " + text);
                if (fatal != null && fatal.isBooleanValue() && fatal.asBooleanValue().getBoolean()) break;
            } // welcome, match_start, hand_start, hand_end: nothing to do
        }
        sock.close();
        ctx.term();
        System.exit(status);
    }
}
