/*
 * etcd's MVCC layout in bbolt (server/mvcc/revision.go, kvstore.go):
 * - bucket `key`: revision keys, 8-byte big-endian main revision, '_', 8-byte big-endian sub
 *   revision (17 bytes), plus a 't' mark (18 bytes) for a tombstone (a delete); the value is a
 *   protobuf mvccpb.KeyValue (1 key, 2 create_revision, 3 mod_revision, 4 version, 5 value, 6 lease);
 * - bucket `meta`: `consistent_index` (u64 big-endian), `finishedCompactRev` and
 *   `scheduledCompactRev` (revision keys).
 */
const REVISION_BYTES = 17;
const TOMBSTONE_MARK = 0x74; // 't'

export interface Revision {
  main: number;
  sub: number;
  tombstone: boolean;
}

/** A revision key, or undefined when the bytes are not one. */
export function parseRevision(bytes: Buffer): Revision | undefined {
  const marked = bytes.length === REVISION_BYTES + 1;
  if (bytes.length !== REVISION_BYTES && !marked) return undefined;
  if (bytes[8] !== 0x5f || (marked && bytes[REVISION_BYTES] !== TOMBSTONE_MARK)) return undefined;
  return {
    main: Number(bytes.readBigUInt64BE(0)),
    sub: Number(bytes.readBigUInt64BE(9)),
    tombstone: marked,
  };
}

export interface KeyValueHead {
  key: Buffer;
  valueBytes: number;
  createRevision: number;
  modRevision: number;
  version: number;
  lease: number;
}

/** The fields of an mvccpb.KeyValue, the value's length but not the value; undefined for bytes that are no KeyValue. */
export function decodeKeyValue(buf: Buffer): KeyValueHead | undefined {
  const kv: KeyValueHead = {
    key: Buffer.alloc(0),
    valueBytes: 0,
    createRevision: 0,
    modRevision: 0,
    version: 0,
    lease: 0,
  };
  const at = { pos: 0 };
  while (at.pos < buf.length) {
    const tag = readVarint(buf, at);
    if (tag === undefined) return undefined;
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    if (wire === 0) {
      const n = readVarint(buf, at);
      if (n === undefined) return undefined;
      if (field === 2) kv.createRevision = n;
      else if (field === 3) kv.modRevision = n;
      else if (field === 4) kv.version = n;
      else if (field === 6) kv.lease = n;
    } else if (wire === 2) {
      const len = readVarint(buf, at);
      if (len === undefined || at.pos + len > buf.length) return undefined;
      if (field === 1) kv.key = buf.subarray(at.pos, at.pos + len);
      else if (field === 5) kv.valueBytes = len;
      at.pos += len;
    } else return undefined;
  }
  return kv;
}

/** A protobuf varint as a JavaScript number (exact to 2^53, which revisions and lengths stay under). */
function readVarint(buf: Buffer, at: { pos: number }): number | undefined {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    const b = buf[at.pos++];
    if (b === undefined) return undefined;
    value += (b & 0x7f) * scale;
    if ((b & 0x80) === 0) return value;
    scale *= 128;
  }
  return undefined;
}
