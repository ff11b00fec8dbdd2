#!/usr/bin/env node
// The conformance suite cannot send a bearer token, and Airlock's gateway
// refuses every request without one. This proxy (loopback only) adds the
// token of a client made for the run (AIRLOCK_GATEWAY_TOKEN) and passes
// everything else through untouched, streams included. A Host or Origin
// naming the proxy itself is rewritten to name the gateway (what an app
// talking to the gateway directly would send); any other Host or Origin
// (the suite's DNS-rebinding checks) reaches the gateway as it was sent.
//
//   AIRLOCK_GATEWAY_TOKEN=... node token-proxy.mjs GATEWAY_PORT   -> prints "listening PORT"
import http from 'node:http';

const target = Number(process.argv[2]);
const token = process.env.AIRLOCK_GATEWAY_TOKEN;
if (!target || !token) {
  console.error('usage: AIRLOCK_GATEWAY_TOKEN=... node token-proxy.mjs GATEWAY_PORT');
  process.exit(2);
}
const server = http.createServer((req, res) => {
  const own = server.address().port;
  const headers = { ...req.headers, authorization: `Bearer ${token}` };
  for (const [name, prefix] of [['host', ''], ['origin', 'http://']]) {
    for (const h of ['127.0.0.1', 'localhost']) {
      if (headers[name] === `${prefix}${h}:${own}`) headers[name] = `${prefix}${h}:${target}`;
    }
  }
  const up = http.request({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers }, (r) => {
    res.writeHead(r.statusCode, r.headers);
    r.pipe(res);
  });
  up.on('error', (e) => { res.writeHead(502); res.end(String(e)); });
  req.pipe(up);
  res.on('close', () => up.destroy());
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
