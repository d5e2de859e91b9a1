/** ZIP archives (DOCX, XLSX) and deflated data read under the ingestion limits. */
export { inflateBounded } from './inflate-bounded';
export type { InflateOutput, InflateResult } from './inflate-bounded';
export { writeStoredZip } from './write-stored-zip';
export { DamagedArchiveError, ZipArchive } from './zip-archive';
export type { ZipEntry } from './zip-archive';
