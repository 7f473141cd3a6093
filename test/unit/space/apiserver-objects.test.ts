import { describe, expect, it } from '@jest/globals';
import { parseApiserverObjects } from '../../../src/probes/space/apiserver-objects.js';

/*
 * The API server's object counts under both names: `apiserver_storage_objects{resource}` (before
 * Kubernetes 1.34, deprecated there) and `apiserver_resource_objects{group,resource}`
 * (kubernetes/kubernetes#132965, 1.34; its group label as apiserver_resource_size_estimate_bytes
 * has it: "" for the core group).
 */
const OLD = [
  '# HELP apiserver_storage_objects [STABLE] Number of stored objects at the time of last check split by kind.',
  '# TYPE apiserver_storage_objects gauge',
  'apiserver_storage_objects{resource="configmaps"} 21',
  'apiserver_storage_objects{resource="deployments.apps"} 4',
  'apiserver_storage_objects{resource="widgets.example.com"} 5',
  'apiserver_storage_objects{resource="secrets"} -1',
].join('\n');
const NEW = [
  '# HELP apiserver_resource_objects [ALPHA] Number of stored objects at the time of last check split by kind.',
  '# TYPE apiserver_resource_objects gauge',
  'apiserver_resource_objects{group="",resource="configmaps"} 21',
  'apiserver_resource_objects{group="apps",resource="deployments"} 4',
  'apiserver_resource_objects{group="example.com",resource="widgets"} 5',
  'apiserver_resource_objects{group="",resource="secrets"} -1',
].join('\n');
const EXPECTED = new Map([
  ['configmaps', 21],
  ['deployments.apps', 4],
  ['widgets.example.com', 5],
]);

describe("the API server's object counts, either metric name", () => {
  it('apiserver_storage_objects (before 1.34): resource as it names it, -1 left out', () => {
    expect(parseApiserverObjects(OLD)).toEqual({ metric: 'apiserver_storage_objects', objects: EXPECTED });
  });

  it("1.34's apiserver_resource_objects where the old name is gone: the same resources, resource.group", () => {
    expect(parseApiserverObjects(NEW)).toEqual({ metric: 'apiserver_resource_objects', objects: EXPECTED });
  });

  it('a server with both (1.34, the old one deprecated): the old name, same counts', () => {
    expect(parseApiserverObjects(`${NEW}\n${OLD}`)?.metric).toBe('apiserver_storage_objects');
  });

  it('neither: nothing', () => {
    expect(parseApiserverObjects('apiserver_request_total{code="200"} 5')).toBeUndefined();
  });
});
