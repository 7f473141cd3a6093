import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createMemberClients } from '../../../src/clients/etcd-clients.js';
import { grpcDeadline, ownDeadlineProblem } from '../../../src/clients/grpc-deadline.js';
import {
  type ClusterState,
  type MemberState,
  quorumGuard,
} from '../../../src/remediation/actions/cluster-state.js';

/**
 * A gRPC deadline lives on the wall clock (grpc-js compares it with Date.now()): a role whose
 * injected clock runs from another date must still give each call its full time, and a call whose
 * deadline was ours and already past must never be read as a member that did not answer.
 */
describe('gRPC deadlines', () => {
  // A listener that accepts and never answers: the HTTP/2 handshake hangs, as a stopped member's does.
  let silent: Server;
  const sockets: Socket[] = [];
  let endpoint = '';
  beforeAll(async () => {
    silent = createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('is a duration from now on the wall clock, never in the past', () => {
    const before = Date.now();
    const { deadline } = grpcDeadline(3000);
    expect(deadline.getTime()).toBeGreaterThanOrEqual(before + 3000);
    expect(deadline.getTime()).toBeLessThan(before + 3000 + 1000);
    expect(grpcDeadline(-500).deadline.getTime()).toBeGreaterThanOrEqual(before);
  });

  it('a call given a deadline already past is ours; one that waited its time out is the member', async () => {
    const clients = createMemberClients(endpoint, undefined);
    try {
      let started = performance.now();
      const early = await clients.admin.maintenance
        .status({ deadline: new Date(Date.parse('2026-12-06T04:00:00Z')) })
        .catch((err: unknown) => err);
      const earlyMs = performance.now() - started;
      expect(String(early)).toMatch(/deadline exceeded/i);
      expect(ownDeadlineProblem(early, earlyMs, 3000)).toMatch(
        /etcd-doctor's own deadline for the call had passed after \d+ ms of the 3000 ms/,
      );

      started = performance.now();
      const late = await clients.admin.maintenance.status(grpcDeadline(400)).catch((err: unknown) => err);
      const lateMs = performance.now() - started;
      expect(String(late)).toMatch(/deadline exceeded/i);
      expect(lateMs).toBeGreaterThanOrEqual(350);
      expect(ownDeadlineProblem(late, lateMs, 400)).toBeUndefined();
      expect(ownDeadlineProblem(new Error('connect ECONNREFUSED'), 1, 3000)).toBeUndefined();
    } finally {
      clients.kv.close();
      clients.admin.close();
    }
  });

  it('the quorum guard refuses without describing the cluster when a member was not asked', () => {
    const member = (name: string, extra: Partial<MemberState> = {}): MemberState => ({
      name,
      endpoint: `http://127.0.0.1:1/${name}`,
      id: name,
      isLearner: false,
      reachable: true,
      isLeader: false,
      dbSizeBytes: 1,
      dbSizeInUseBytes: undefined,
      revision: 1,
      appliedIndex: 1,
      errors: [],
      problem: undefined,
      ...extra,
    });
    const notAsked = "etcd-doctor's own deadline for the call had passed after 1 ms of the 3000 ms";
    const state: ClusterState = {
      members: ['etcd-1', 'etcd-2', 'etcd-3'].map((n) =>
        member(n, { reachable: false, problem: 'was not asked', notAsked }),
      ),
      quorum: 2,
      healthyVoting: 0,
    };
    const refusal = quorumGuard(state, 'defragment') ?? '';
    expect(refusal).toMatch(/^refusing to defragment: etcd-doctor could not read the cluster's state/);
    expect(refusal).toMatch(/says nothing about the cluster's health/);
    expect(refusal).not.toMatch(/healthy members|quorum of|not fault tolerant/);
  });
});
