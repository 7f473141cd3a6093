// The floor under a `health` without gRPC: Node starts (CommonJS, no ES module loader), and sends
// health's requests through etcd's JSON gateway (grpc-gateway, on by default on the client URL of
// etcd 3.4 and 3.5) with node:http alone: MemberList once; per member a linearizable Range of the
// key `health` and Status. Nothing else: no config, no rules, one line out. bench/cli-process.ts
// times it beside the gRPC floor (raw-health.mjs), the CLI and etcdctl: argv[2] is the members'
// client URLs (http://), comma-separated.
'use strict';
const http = require('node:http');

const agent = new http.Agent({ keepAlive: true });
const endpoints = (process.argv[2] ?? '').split(',').filter(Boolean);

function call(endpoint, path, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, endpoint), { method: 'POST', agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(text))));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const health = Buffer.from('health').toString('base64');
Promise.all([
  call(endpoints[0], '/v3/cluster/member/list', {}),
  ...endpoints.map((e) =>
    Promise.all([call(e, '/v3/kv/range', { key: health }), call(e, '/v3/maintenance/status', {})]),
  ),
]).then(
  ([list]) => process.stdout.write(`${list.members.length} members\n`, () => process.exit(0)),
  (err) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  },
);
