/** Guarded page fetching (SSRF checks after DNS, on every redirect) and readable-text extraction. */
export { classifyAddress, FORBIDDEN_ADDRESS_LABELS } from './classify-address';
export type { ForbiddenAddressClass } from './classify-address';
export { createHostAllowlist } from './host-allowlist';
export type { HostAllowlist } from './host-allowlist';
export { ForbiddenAddressError } from './forbidden-address-error';
export { createPageFetcher } from './create-page-fetcher';
export type {
  CreatePageFetcherOptions,
  FetchedPage,
  PageFetcher,
  ResolveHost,
  ResolvedAddress,
} from './create-page-fetcher';
export { extractReadableText } from './extract-readable-text';
export type { ExtractReadableTextOptions, ReadableText } from './extract-readable-text';
