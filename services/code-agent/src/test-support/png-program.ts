/** A Python program that writes a 2×2 PNG with the standard library only (no matplotlib here). */
export const PNG_PROGRAM = `import struct, zlib
def chunk(kind, data):
    body = kind + data
    return struct.pack('>I', len(data)) + body + struct.pack('>I', zlib.crc32(body) & 0xffffffff)
width, height = 2, 2
rows = b''.join(b'\\x00' + bytes([255, 0, 0] * width) for _ in range(height))
png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0)) \\
    + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b'')
with open('chart.png', 'wb') as f:
    f.write(png)
print('wrote chart.png')
`;

/** The eight bytes every PNG starts with. */
export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
