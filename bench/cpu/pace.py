"""Publishes ON/OFF commands to one topic over a plain MQTT 3.1.1 connection, as fast as the
socket takes them or paced at a rate: the load of bench/cpu/run.sh.

    python3 pace.py PORT TOPIC COUNT [RATE] [QOS]

RATE 0 (the default) sends them back to back; QOS is 0 or 1 (PUBACKs are read and dropped).
"""
import socket
import sys
import threading
import time


def remaining_length(n):
    out = b''
    while True:
        byte, n = n % 128, n // 128
        out += bytes([byte | (0x80 if n else 0)])
        if not n:
            return out


def main():
    port, topic, count = int(sys.argv[1]), sys.argv[2].encode(), int(sys.argv[3])
    rate = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
    qos = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    s = socket.create_connection(('127.0.0.1', port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    client = b'bench-cpu-%d' % (time.time_ns() % 1_000_000)
    body = b'\x00\x04MQTT\x04\x02\x00\x3c' + len(client).to_bytes(2, 'big') + client
    s.sendall(b'\x10' + remaining_length(len(body)) + body)
    if s.recv(4)[:1] != b'\x20':
        sys.exit('pace.py: no CONNACK')

    def drain():
        try:
            while s.recv(65536):
                pass
        except OSError:
            pass
    threading.Thread(target=drain, daemon=True).start()

    def packet(i):
        payload = b'ON' if i % 2 == 0 else b'OFF'
        if qos == 0:
            body = len(topic).to_bytes(2, 'big') + topic + payload
            return b'\x30' + remaining_length(len(body)) + body
        body = len(topic).to_bytes(2, 'big') + topic + (i % 65000 + 1).to_bytes(2, 'big') + payload
        return b'\x32' + remaining_length(len(body)) + body

    start, i = time.monotonic(), 0
    burst = max(1, int(rate / 1000)) if rate > 0 else count
    while i < count:
        if rate > 0:
            delay = start + i / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        chunk = b''.join(packet(j) for j in range(i, min(count, i + burst)))
        s.sendall(chunk)
        i += burst
    s.sendall(b'\xe0\x00')
    s.close()


if __name__ == '__main__':
    main()
