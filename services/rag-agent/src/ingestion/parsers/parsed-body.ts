import type { ParsedDocument } from '../types';

/** What a format parser returns: a {@link ParsedDocument} before the type and title fallback. */
export type ParsedBody = Omit<ParsedDocument, 'docType'>;
