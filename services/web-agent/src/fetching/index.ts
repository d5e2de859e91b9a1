/** Guarded page fetching (SSRF checks after DNS, on every redirect) and readable-text extraction. */
export { classifyAddress, FORBIDDEN_ADDRESS_LABELS } from './classify-address';
export type { ForbiddenAddressClass } from './classify-address';
export { createHostAllowlist } from './host-allowlist';
export type { HostAllowlist } from './host-allowlist';
export { ForbiddenAddressError } from './forbidden-address-error';
export { PAGE_LIMIT_NAMES, PageLimitError } from './page-limit-error';
export type { PageLimit } from './page-limit-error';
export { createPageFetcher } from './create-page-fetcher';
export type {
  CreatePageFetcherOptions,
  FetchedPage,
  PageFetcher,
  ResolveHost,
  ResolvedAddress,
} from './create-page-fetcher';
export { createPageReader, inProcessPageReader } from './create-page-reader';
export type { CreatePageReaderOptions, PageReader, PageReadRequest } from './create-page-reader';
export { extractReadableText } from './extract-readable-text';
export type { ExtractReadableTextOptions, ReadableText } from './extract-readable-text';
