/**
 * The Redis Cluster slot of a key (CRC16/XMODEM of the key, or of its hash tag — the text between
 * the first `{` and the next `}` when not empty — modulo 16384), as Redis computes it.
 */
export function redisKeySlot(key: string): number {
  const bytes = Buffer.from(key, 'utf8');
  const open = bytes.indexOf('{');
  const close = open === -1 ? -1 : bytes.indexOf('}', open + 1);
  const hashed = close > open + 1 ? bytes.subarray(open + 1, close) : bytes;
  let crc = 0;
  for (const byte of hashed) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc % 16384;
}
