import { OfflineInputError } from '../../errors.js';

/** What the first bytes of a file say it is. */
export type FileFormat = 'gzip' | 'tar' | 'zip' | 'xz' | 'bzip2' | '7z' | 'zstd' | 'rar' | 'other';

const MAGIC: ReadonlyArray<readonly [Exclude<FileFormat, 'tar' | 'other'>, readonly number[]]> = [
  ['gzip', [0x1f, 0x8b]],
  ['zip', [0x50, 0x4b, 0x03, 0x04]],
  ['zip', [0x50, 0x4b, 0x05, 0x06]], // an empty zip
  ['xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ['bzip2', [0x42, 0x5a, 0x68]],
  ['7z', [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
  ['zstd', [0x28, 0xb5, 0x2f, 0xfd]],
  ['rar', [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07]],
];

/** POSIX ustar and GNU tar both put `ustar` at offset 257 of every header block. */
export function isTarHeader(head: Buffer): boolean {
  return head.length >= 262 && head.toString('latin1', 257, 262) === 'ustar';
}

/** By magic bytes, never by the file's name (a `.tar.gz` may be a plain log, a `.log` a tarball). */
export function detectFormat(head: Buffer): FileFormat {
  for (const [format, magic] of MAGIC) {
    if (magic.every((byte, i) => head[i] === byte)) return format;
  }
  return isTarHeader(head) ? 'tar' : 'other';
}

const UNSUPPORTED: Record<string, { what: string; how: string }> = {
  zip: { what: 'a zip archive', how: 'unzip it' },
  xz: { what: 'xz-compressed', how: 'unpack it (tar -xJf, or unxz for a single file)' },
  bzip2: { what: 'bzip2-compressed', how: 'unpack it (tar -xjf, or bunzip2 for a single file)' },
  '7z': { what: 'a 7z archive', how: 'unpack it (7z x)' },
  zstd: { what: 'zstd-compressed', how: 'unpack it (tar --zstd -xf, or unzstd for a single file)' },
  rar: { what: 'a rar archive', how: 'unpack it (unrar x)' },
};

/** Formats etcd-doctor does not unpack: say which it is and what to do. */
export function unsupportedArchive(path: string, format: FileFormat): OfflineInputError | undefined {
  const known = UNSUPPORTED[format];
  if (!known) return undefined;
  return new OfflineInputError(
    `${path} is ${known.what}, which etcd-doctor does not read: ${known.how} and give the directory ` +
      '(or the log files) instead, or repack it as .tar.gz',
  );
}
