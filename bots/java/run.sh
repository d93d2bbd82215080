#!/bin/sh
# Starts the Java bot built by `make -C bots/java`; libzmq's Java binding needs its JNI library path.
# Small heap and reservations: the JVM then also starts under an address-space limit.
here=$(dirname "$0")
exec java -Xmx128m -Xss512k -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=32m \
  -XX:CompressedClassSpaceSize=64m -Xshare:off \
  -Djava.library.path=/usr/lib/x86_64-linux-gnu/jni:/usr/lib/jni \
  -cp "$here/build:/usr/share/java/zmq.jar:/usr/share/java/msgpack-core.jar" Bot "$@"
