import { describe, expect, it } from '@jest/globals';
import { configFileSchema } from '../../../src/config/schema.js';
import { createSharedSpaceMeter } from '../../../src/mcp/space-tool.js';
import type { SpaceReport } from '../../../src/space/space-report.js';

const [cluster] = configFileSchema.parse({
  clusters: [{ name: 'prod', etcd: { endpoints: ['http://127.0.0.1:1'] } }],
}).clusters;

describe('createSharedSpaceMeter', () => {
  it('one scan of a cluster at a time: a call while one runs joins it; a cancelled caller stops waiting, the scan goes on', async () => {
    let scans = 0;
    let finish: (r: SpaceReport) => void = () => undefined;
    const meter = createSharedSpaceMeter(() => {
      scans++;
      return new Promise<SpaceReport>((resolve) => {
        finish = resolve;
      });
    });
    if (!cluster) throw new Error('no cluster');
    const first = meter(cluster, {});
    const cancelled = new AbortController();
    const second = meter(cluster, { signal: cancelled.signal });
    cancelled.abort(new Error('client went away'));
    await expect(second).rejects.toThrow('client went away');
    const third = meter(cluster, {});
    expect(scans).toBe(1);
    const report = { cluster: 'prod' } as SpaceReport;
    finish(report);
    await expect(first).resolves.toBe(report);
    await expect(third).resolves.toBe(report);
    void meter(cluster, {});
    expect(scans).toBe(2);
  });
});
