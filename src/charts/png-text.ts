import { crc32 } from 'node:zlib';

/** PNG's signature and the IHDR chunk that follows it are 8 + 25 bytes (PNG spec, 5.2 and 11.2.2). */
const AFTER_IHDR = 8 + 4 + 4 + 13 + 4;

/**
 * The PNG with a `tEXt` chunk `Description` (PNG spec 11.3.4.2, a predefined keyword): the chart's
 * alt text travels in the file, for a saved or forwarded chart as for the one Slack shows with its
 * `alt_text`. tEXt is Latin-1: other characters become `?`; capped at 2,000 characters.
 */
export function withDescription(png: Buffer, description: string): Buffer {
  const text = Buffer.from(description.slice(0, 2000).replace(/[^\x20-\x7e\xa0-\xff\n]/g, '?'), 'latin1');
  const data = Buffer.concat([Buffer.from('Description\0', 'latin1'), text]);
  const type = Buffer.from('tEXt', 'latin1');
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  type.copy(chunk, 4);
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(Buffer.concat([type, data])), 8 + data.length);
  return Buffer.concat([png.subarray(0, AFTER_IHDR), chunk, png.subarray(AFTER_IHDR)]);
}
