// Writes the demo corpus's binary documents: beacon-pricing-2026.xlsx (exceljs),
// security-policy.docx and service-level-agreement.pdf (written here byte by byte: a minimal
// OOXML package and a minimal PDF with Helvetica text). Their output is committed; run it again
// after editing the content below:
//
//   node services/rag-agent/scripts/generate-demo-files.mjs
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import ExcelJS from 'exceljs';

const here = join(dirname(fileURLToPath(import.meta.url)), '..', 'demo-corpus');
/** Fixed so that re-running the script changes only what the content changes. */
const WRITTEN = new Date(Date.UTC(2026, 0, 15, 9, 0, 0));

// ---------------------------------------------------------------------------------------------
// beacon-pricing-2026.xlsx

async function writePricing() {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'Kestrel Analytics Sales Operations';
  workbook.created = WRITTEN;
  workbook.modified = WRITTEN;
  const sheets = [
    {
      name: 'Plans',
      rows: [
        [
          'Plan',
          'Monthly price per sensor (EUR)',
          'Annual price per sensor (EUR)',
          'Maximum sensors',
          'Data retention',
          'Support',
        ],
        ['Starter', 9, 90, 25, '90 days', 'Email, next business day'],
        ['Professional', 19, 190, 500, '2 years', 'Business hours, 4-hour response'],
        ['Enterprise', 35, 350, 'Unlimited', '7 years', '24/7, 1-hour response for P1'],
      ],
    },
    {
      name: 'Discounts',
      rows: [
        ['Discount', 'Amount', 'Conditions'],
        ['Volume', '15%', 'More than 1,000 sensors on an Enterprise annual contract'],
        ['Education', '40%', 'Accredited schools and universities'],
        ['Nonprofit', '25%', 'Registered charities'],
        ['Multi-year', '10%', 'Three years paid in advance; combines with the volume discount'],
      ],
    },
    {
      name: 'Hardware',
      rows: [
        ['Item', 'Price (EUR)', 'Notes'],
        ['Beacon S2 indoor sensor', 149, 'CO2, PM2.5, temperature and humidity'],
        ['Beacon X1 outdoor sensor', 329, 'IP67 housing, optional solar panel'],
        ['Gateway G3', 249, 'One per site, connects up to 200 sensors'],
        ['Solar panel kit', 89, 'For Beacon X1 only'],
      ],
    },
  ];
  for (const { name, rows } of sheets) {
    const sheet = workbook.addWorksheet(name);
    for (const row of rows) sheet.addRow(row);
    sheet.getRow(1).font = { bold: true };
  }
  const buffer = await workbook.xlsx.writeBuffer();
  writeFileSync(join(here, 'beacon-pricing-2026.xlsx'), Buffer.from(buffer));
}

// ---------------------------------------------------------------------------------------------
// A minimal zip writer (deflate), enough for a .docx.

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function dosTime(date) {
  const time =
    (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | (date.getUTCSeconds() >> 1);
  const day =
    ((date.getUTCFullYear() - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate();
  return { time, day };
}

function zip(files) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  const { time, day } = dosTime(WRITTEN);
  for (const [name, text] of files) {
    const data = Buffer.from(text, 'utf8');
    const packed = deflateRawSync(data);
    const nameBytes = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(day, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    locals.push(local, nameBytes, packed);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(time, 12);
    central.writeUInt16LE(day, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

// ---------------------------------------------------------------------------------------------
// security-policy.docx

const POLICY = [
  ['Title', 'Kestrel Analytics Information Security Policy'],
  [
    'Normal',
    'Version 2.0, approved on 15 January 2026 by Malik Osei, Chief Information Security Officer (CISO). This policy applies to every employee, contractor and intern of Kestrel Analytics GmbH.',
  ],
  ['Heading1', 'Passwords and authentication'],
  [
    'Normal',
    'Passwords must be at least 14 characters long and must not be reused across services. Use the company password manager (1Password) for every work account.',
  ],
  [
    'Normal',
    'Multi-factor authentication (MFA) is mandatory for all company accounts. Administrators of production systems must use a hardware security key (YubiKey) as their second factor.',
  ],
  ['Heading1', 'Devices'],
  [
    'Normal',
    'Laptops must use full-disk encryption and lock the screen after 5 minutes of inactivity. Operating system security updates must be installed within 14 days of release.',
  ],
  [
    'Normal',
    'Lost or stolen devices must be reported to the IT team within 2 hours so that they can be wiped remotely.',
  ],
  ['Heading1', 'Data classification'],
  [
    'Normal',
    'Information is classified as Public, Internal, Confidential or Restricted. Customer sensor data and customer contact details are Confidential. Encryption keys and production credentials are Restricted.',
  ],
  [
    'Normal',
    'Confidential and Restricted data must never be stored on personal devices or shared through personal email accounts.',
  ],
  ['Heading1', 'Reporting security incidents'],
  [
    'Normal',
    'Every suspected security incident must be reported within 24 hours to security@kestrel.example or in the #sec-incidents Slack channel. The security team acknowledges every report within one business day.',
  ],
  ['Heading1', 'Access and vendors'],
  [
    'Normal',
    'Managers review the access rights of their teams every quarter. Access is removed on an employee’s last working day.',
  ],
  [
    'Normal',
    'Vendors that process customer data are reviewed once a year, and before any new contract is signed.',
  ],
];

function escapeXml(text) {
  return text.replace(
    /[<>&"]/g,
    (char) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[char],
  );
}

function writePolicy() {
  const body = POLICY.map(
    ([style, text]) =>
      `<w:p><w:pPr><w:pStyle w:val="${style}"/></w:pPr><w:r><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r></w:p>`,
  ).join('');
  const document = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}<w:sectPr/></w:body></w:document>`;
  const styles = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">
<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
</w:styles>`;
  const contentTypes = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>
</Types>`;
  const rels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
</Relationships>`;
  const documentRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>
</Relationships>`;
  const bytes = zip([
    ['[Content_Types].xml', contentTypes],
    ['_rels/.rels', rels],
    ['word/document.xml', document],
    ['word/_rels/document.xml.rels', documentRels],
    ['word/styles.xml', styles],
  ]);
  writeFileSync(join(here, 'security-policy.docx'), bytes);
}

// ---------------------------------------------------------------------------------------------
// service-level-agreement.pdf: headings at 16 pt, text at 11 pt, one page each.

const SLA_PAGES = [
  [
    { heading: 'Beacon Service Level Agreement' },
    'Effective 1 January 2026. This Service Level Agreement (SLA) is part of every Professional and Enterprise subscription to the Beacon platform of Kestrel Analytics GmbH. The Starter plan has no SLA.',
    { heading: 'Uptime commitment' },
    'Kestrel commits to a monthly uptime of 99.9% for the Professional plan and 99.95% for the Enterprise plan. Uptime is measured per calendar month as the share of minutes in which the ingestion API and the dashboards answer.',
    { heading: 'Service credits' },
    'If the monthly uptime falls below the commitment, the customer receives a service credit of 10% of the monthly fee. Below 99.0% uptime the credit is 25%, and below 95.0% uptime it is 50% of the monthly fee.',
    'Credits must be requested within 30 days after the end of the affected month, by email to billing@kestrel.example.',
  ],
  [
    { heading: 'Maintenance windows' },
    'Planned maintenance takes place on Sundays between 02:00 and 04:00 CET and is announced at least 7 days in advance on the status page. Planned maintenance does not count as downtime.',
    { heading: 'Support response times' },
    'Priority 1 incidents (the platform is down or data is being lost): 1 hour on the Enterprise plan, 4 hours on the Professional plan. Priority 2 incidents: 4 hours on Enterprise, next business day on Professional.',
    { heading: 'Exclusions' },
    'The SLA does not cover outages caused by the customer network, by sensors or gateways running firmware older than 12 months, or by force majeure.',
  ],
];

/** Breaks a paragraph into lines that fit the page at 11 pt Helvetica (about 95 characters). */
function wrap(text, width = 95) {
  const lines = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

function pdfString(text) {
  // WinAnsi: plain ASCII here, with the parentheses and backslashes escaped.
  return text.replace(/[\\()]/g, (char) => `\\${char}`);
}

function writeSla() {
  const objects = [];
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  const kids = SLA_PAGES.map((_, index) => `${4 + index * 2} 0 R`).join(' ');
  objects[2] = `<< /Type /Pages /Kids [${kids}] /Count ${SLA_PAGES.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
  SLA_PAGES.forEach((blocks, index) => {
    const operations = [];
    let y = 740;
    for (const block of blocks) {
      if (typeof block === 'object') {
        y -= 10;
        operations.push(`BT /F1 16 Tf 72 ${y} Td (${pdfString(block.heading)}) Tj ET`);
        y -= 24;
        continue;
      }
      for (const line of wrap(block)) {
        operations.push(`BT /F1 11 Tf 72 ${y} Td (${pdfString(line)}) Tj ET`);
        y -= 15;
      }
      y -= 8;
    }
    operations.push(`BT /F1 9 Tf 290 40 Td (${index + 1}) Tj ET`);
    const stream = operations.join('\n');
    objects[4 + index * 2] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + index * 2} 0 R >>`;
    objects[5 + index * 2] =
      `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`;
  });
  let out = '%PDF-1.4\n';
  const offsets = [];
  for (let number = 1; number < objects.length; number++) {
    offsets[number] = Buffer.byteLength(out, 'latin1');
    out += `${number} 0 obj\n${objects[number]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  out += offsets
    .slice(1)
    .map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`)
    .join('');
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R /Info << /Title (Beacon Service Level Agreement) >> >>\nstartxref\n${xref}\n%%EOF\n`;
  writeFileSync(join(here, 'service-level-agreement.pdf'), Buffer.from(out, 'latin1'));
}

await writePricing();
writePolicy();
writeSla();
process.stdout.write(
  'wrote beacon-pricing-2026.xlsx, security-policy.docx, service-level-agreement.pdf\n',
);
