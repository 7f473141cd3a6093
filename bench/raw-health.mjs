// The floor under `etcd-doctor health` as a whole process: Node starts, loads etcd3 (grpc-js) and
// sends the RPCs health sends (MemberList once; per member a linearizable Get of one key and
// Status), then exits. No config, no rules, no output beyond one line. bench/cli-process.ts times it
// beside the CLI and etcdctl: argv[2] is the members' client URLs, comma-separated.
import { Etcd3 } from 'etcd3';

const endpoints = (process.argv[2] ?? '').split(',').filter(Boolean);
const clients = endpoints.map((e) => new Etcd3({ hosts: [e] }));
const [members] = await Promise.all([
  clients[0]?.cluster.memberList({}),
  ...clients.map((c) => Promise.all([c.get('health').string(), c.maintenance.status()])),
]);
process.stdout.write(`${members?.members.length ?? 0} members\n`, () => process.exit(0));
