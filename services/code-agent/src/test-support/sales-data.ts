import { inflateSync } from 'node:zlib';
import { PNG_SIGNATURE } from './png-program';

/** A small sales table over three months: January 150, February 75, March 240. */
export const SALES_CSV = [
  'date,region,amount',
  '2024-01-05,north,100',
  '2024-01-20,south,50',
  '2024-02-03,north,75',
  '2024-03-01,south,40',
  '2024-03-15,north,200',
  '',
].join('\n');

/**
 * A pandas program: reads `/data/sales.csv`, totals the amounts per month, prints them, draws them
 * with matplotlib and writes `chart.png`; then tries to write into `/data` and says what happened.
 */
export const MONTHLY_CHART_PROGRAM = `import os
import pandas as pd
import matplotlib
import matplotlib.pyplot as plt

sales = pd.read_csv('/data/sales.csv', parse_dates=['date'])
monthly = sales.groupby(sales['date'].dt.to_period('M'))['amount'].sum()
for month, total in monthly.items():
    print(month, total)
fig, ax = plt.subplots(figsize=(4, 3), dpi=50)
monthly.plot.bar(ax=ax, title='Monthly sales')
fig.tight_layout()
fig.savefig('chart.png')
print('backend', matplotlib.get_backend())
print('read-only mount', bool(os.statvfs('/data').f_flag & os.ST_RDONLY))
for path, mode in [('/data/sales.csv', 'a'), ('/data/new.txt', 'w')]:
    try:
        with open(path, mode) as f:
            f.write('x')
        print(path, 'written')
    except OSError as error:
        print(path, 'refused', error.errno)
`;

/** The monthly totals MONTHLY_CHART_PROGRAM prints for SALES_CSV. */
export const MONTHLY_TOTALS = '2024-01 150\n2024-02 75\n2024-03 240\n';

/** What a PNG says about itself after decoding. */
export interface DecodedPng {
  width: number;
  height: number;
  /** Bytes of the inflated image data (filter byte plus pixels, per row). */
  pixelBytes: number;
}

/** Channels per pixel by PNG color type (8-bit samples). */
const CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 4: 2, 6: 4 };

/**
 * Decodes a PNG's structure: the signature, IHDR (width, height), the chunks up to IEND and the
 * inflated IDAT data, which must be exactly one filter byte plus the pixels per row. Throws when
 * any of that is wrong.
 */
export function decodePng(bytes: Buffer): DecodedPng {
  if (!bytes.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('not a PNG signature');
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  for (;;) {
    if (offset + 8 > bytes.length) throw new Error('PNG ends before IEND');
    const length = bytes.readUInt32BE(offset);
    const kind = bytes.toString('latin1', offset + 4, offset + 8);
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (kind === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [bitDepth, colorType] = [body[8], body[9]];
      if (bitDepth !== 8) throw new Error(`unexpected bit depth ${String(bitDepth)}`);
      channels = CHANNELS[colorType ?? -1] ?? 0;
    } else if (kind === 'IDAT') {
      data.push(body);
    } else if (kind === 'IEND') {
      break;
    }
    offset += 12 + length;
  }
  if (width <= 0 || height <= 0 || channels === 0) throw new Error('no usable IHDR');
  const pixels = inflateSync(Buffer.concat(data));
  if (pixels.length !== height * (1 + width * channels)) {
    throw new Error(`image data of ${pixels.length} bytes for ${width}×${height}`);
  }
  return { width, height, pixelBytes: pixels.length };
}
