#!/usr/bin/env python3
"""latency_proxy.py LISTEN_PORT TARGET_PORT DELAY_US: a TCP relay on 127.0.0.1 that holds
every piece of data DELAY_US microseconds before passing it on, in both directions: a
loopback link with a network's latency (the kernel's netem qdisc is not always there).
LISTEN_PORT 0 takes a free port; the first line printed is "listening on 127.0.0.1:PORT".
Used by bench/remote_pipeline_bench.sh; stops on SIGTERM or Ctrl-C."""
import asyncio
import sys


async def pump(reader, writer, delay):
    loop = asyncio.get_running_loop()
    pending = asyncio.Queue()

    async def deliver():
        # In arrival order, each piece no sooner than DELAY after it arrived.
        while True:
            due, data = await pending.get()
            if data is None:
                break
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
        writer.close()

    delivering = asyncio.create_task(deliver())
    while True:
        data = await reader.read(1 << 20)
        pending.put_nowait((loop.time() + delay, data or None))
        if not data:
            break
    await delivering


async def main():
    listen_port, target_port, delay_us = (int(a) for a in sys.argv[1:4])
    delay = delay_us / 1e6

    async def relay(client_reader, client_writer):
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target_port)
        await asyncio.gather(pump(client_reader, server_writer, delay),
                             pump(server_reader, client_writer, delay))

    server = await asyncio.start_server(relay, "127.0.0.1", listen_port)
    port = server.sockets[0].getsockname()[1]
    print(f"listening on 127.0.0.1:{port}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
