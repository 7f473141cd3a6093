import { describe, expect, it } from '@jest/globals';
import { configFileSchema } from '../../../src/config/schema.js';
import { digestPartSlots, MAX_PART_SLOTS } from '../../../src/digest/part-slots.js';

const configOf = (clusters: number, digest?: { partSize: number }) =>
  configFileSchema.parse({
    clusters: Array.from({ length: clusters }, (_, i) => ({
      name: `c${i}`,
      etcd: { endpoints: ['http://127.0.0.1:2379'] },
    })),
    ...(digest ? { digest } : {}),
  });

describe("a worker's job slots for a digest's parts", () => {
  it('adds none while the digest runs in one job', () => {
    expect(digestPartSlots(configOf(1))).toBe(0);
    expect(digestPartSlots(configOf(50))).toBe(0);
  });

  it('adds one per part, so every part of a 1,000-cluster digest runs at once in one worker', () => {
    expect(digestPartSlots(configOf(51))).toBe(2);
    expect(digestPartSlots(configOf(1000))).toBe(20);
    expect(digestPartSlots(configOf(1000, { partSize: 200 }))).toBe(5);
  });

  it('stops at a cap: past it, more worker processes share the parts', () => {
    expect(digestPartSlots(configOf(5000))).toBe(MAX_PART_SLOTS);
  });
});
