import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/*
 * `etcdctl snapshot save` writes what the server streams: the bbolt file, then the SHA-256 of its
 * bytes (32 bytes). etcdutl tells the two apart by size, as here: a bbolt file is whole pages (a
 * multiple of 512 bytes), so `size % 512 == 32` means a trailer (etcdutl snapshot/v3_snapshot.go).
 */
const SHA256_BYTES = 32;
const SECTOR_BYTES = 512;

export function hasSha256Trailer(sizeBytes: number): boolean {
  return sizeBytes % SECTOR_BYTES === SHA256_BYTES;
}

/** The bytes the bbolt file itself holds (the size without the trailer). */
export function bboltBytes(sizeBytes: number): number {
  return hasSha256Trailer(sizeBytes) ? sizeBytes - SHA256_BYTES : sizeBytes;
}

/** Whether the trailer matches the bytes before it (read as a stream, never held whole); null without a trailer. */
export async function checkSha256Trailer(
  path: string,
  file: FileHandle,
  sizeBytes: number,
  signal?: AbortSignal,
): Promise<boolean | null> {
  if (!hasSha256Trailer(sizeBytes)) return null;
  const data = sizeBytes - SHA256_BYTES;
  const hash = createHash('sha256');
  if (data > 0)
    for await (const chunk of createReadStream(path, {
      start: 0,
      end: data - 1,
      highWaterMark: 1024 * 1024,
      ...(signal ? { signal } : {}),
    }))
      hash.update(chunk as Buffer);
  signal?.throwIfAborted();
  const trailer = Buffer.alloc(SHA256_BYTES);
  await file.read(trailer, 0, SHA256_BYTES, data);
  return hash.digest().equals(trailer);
}
