#!/usr/bin/env node
/*
 * bench/fanout_reference.js: the reference server of bench_fanout (issue 12).
 *
 *   node fanout_reference.js [--listen ADDR] [--port N] [--size BYTES]
 *
 * A websocket server on Debian's node-ws (package node-ws, the module in
 * /usr/share/nodejs/ws) that does the least a fan-out server can do: it
 * accepts every client (offering the subprotocol brigade.v1 when the client
 * asks for it, so that bench_fanout's client checks it as with brigaded),
 * and on each binary message from any client it sends one binary message of
 * --size bytes (300) to every open client, the sender included: the
 * message's first bytes (at most --size) followed by zeros. The sender's copy
 * is its "echo", which bench_fanout times as brigaded's ack. The clients are
 * sent to in the order they connected (ws keeps them in a Set), so the
 * actor, which bench_fanout connects first, is written to first, as
 * brigaded writes its players before its spectators. No compression
 * (permessage-deflate is refused), no other work: no state, no journal.
 *
 * It prints one line once it listens, which bench_fanout waits for:
 *   fanout_reference: listening on http://127.0.0.1:PORT (node vX, ws Y)
 * and stops on SIGTERM or SIGINT.
 */
'use strict';

let ws;
try {
    ws = require('ws');
} catch (error) {
    /* Debian's node-ws lives here; Debian's own nodejs searches it, a
     * nodejs from elsewhere (NodeSource) does not. */
    ws = require('/usr/share/nodejs/ws');
}

function options(argv) {
    const o = {listen: '127.0.0.1', port: 0, size: 300};
    for (let i = 2; i < argv.length; i += 2) {
        const name = argv[i], value = argv[i + 1];
        if (value === undefined) {
            throw new Error(`${name}: a value is missing`);
        }
        if (name === '--listen') {
            o.listen = value;
        } else if (name === '--port' || name === '--size') {
            const n = Number(value);
            if (!Number.isInteger(n) || n < 0 || n > 65535) {
                throw new Error(`${name}: '${value}' is not a whole number in 0..65535`);
            }
            o[name.slice(2)] = n;
        } else {
            throw new Error(`unknown option ${name}`);
        }
    }
    return o;
}

let o;
try {
    o = options(process.argv);
} catch (error) {
    process.stderr.write(`fanout_reference: ${error.message}\n` +
        'usage: fanout_reference.js [--listen ADDR] [--port N] [--size BYTES]\n');
    process.exit(2);
}

const version = (() => {
    try {
        return require(require.resolve('ws').replace(/index\.js$/, 'package.json')).version;
    } catch (error) {
        try {
            return require('/usr/share/nodejs/ws/package.json').version;
        } catch (error2) {
            return '?';
        }
    }
})();

const server = new ws.WebSocketServer({
    host: o.listen,
    port: o.port,
    perMessageDeflate: false,
    clientTracking: true,
    maxPayload: 65536,
    handleProtocols: (protocols) => (protocols.has('brigade.v1') ? 'brigade.v1' : false),
});

server.on('listening', () => {
    const address = server.address();
    process.stdout.write(`fanout_reference: listening on http://${address.address}:${address.port}` +
        ` (node ${process.version}, ws ${version})\n`);
});

server.on('error', (error) => {
    process.stderr.write(`fanout_reference: ${error.message}\n`);
    process.exit(1);
});

server.on('connection', (socket) => {
    socket.on('message', (data, isBinary) => {
        if (!isBinary) {
            return;
        }
        const out = Buffer.alloc(o.size);
        data.copy(out, 0, 0, Math.min(data.length, o.size));
        for (const client of server.clients) {
            if (client.readyState === ws.OPEN) {
                client.send(out, {binary: true});
            }
        }
    });
    socket.on('error', () => {
        /* a client reset: ws closes the socket, which leaves server.clients */
    });
});

for (const signal of ['SIGTERM', 'SIGINT']) {
    process.on(signal, () => process.exit(0));
}
