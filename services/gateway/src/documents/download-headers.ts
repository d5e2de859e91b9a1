import { contentDisposition } from './content-disposition';

/** A media type the gateway passes on: `type/subtype`, optionally with a charset and nothing else. */
const SERVABLE_MEDIA_TYPE =
  /^([a-z0-9][a-z0-9!#$&^_.+-]{0,126})\/([a-z0-9][a-z0-9!#$&^_.+-]{0,126})(?:\s*;\s*charset="?([a-z0-9_.:-]{1,40})"?)?$/i;

/**
 * Types a browser would run or render as a page on the gateway's origin (script in HTML, SVG and
 * XML documents): never served as themselves.
 */
function isActive(essence: string): boolean {
  return (
    /html|xml|javascript|ecmascript|svg/.test(essence) ||
    essence === 'text/css' ||
    essence.startsWith('multipart/')
  );
}

/** What {@link downloadHeaders} decided, and the headers that say so. */
export interface DownloadHeaders {
  /** True when the bytes are served as `application/octet-stream` attachments. */
  attachment: boolean;
  headers: Record<string, string>;
}

/**
 * Response headers for a document's original bytes. The stored media type is passed on (with its
 * charset) and the file shown inline, unless it is active content (HTML, XHTML, SVG, XML,
 * JavaScript, CSS, multipart) or not a plain `type/subtype`: then it is
 * `application/octet-stream` and an attachment, so a browser downloads it instead of running it
 * on the API's origin. Always `X-Content-Type-Options: nosniff`, a sandboxing
 * `Content-Security-Policy`, a cleaned RFC 6266 filename (`filename*` for non-ASCII) and
 * `Cache-Control: private, no-store` (a tenant's file).
 *
 * @example
 * downloadHeaders({ mediaType: 'text/html; charset=utf-8', filename: 'page.html' }).headers['Content-Type'];
 * // 'application/octet-stream'
 */
export function downloadHeaders({
  mediaType,
  filename,
}: {
  mediaType: string | undefined;
  filename: string;
}): DownloadHeaders {
  const match = SERVABLE_MEDIA_TYPE.exec(mediaType?.trim() ?? '');
  const essence = match === null ? undefined : `${match[1]}/${match[2]}`.toLowerCase();
  const charset = match?.[3]?.toLowerCase();
  const served = essence === undefined || isActive(essence) ? undefined : essence;
  const attachment = served === undefined;
  const contentType =
    served === undefined
      ? 'application/octet-stream'
      : `${served}${charset === undefined ? '' : `; charset=${charset}`}`;
  return {
    attachment,
    headers: {
      'Content-Type': contentType,
      'Content-Disposition': contentDisposition({
        type: attachment ? 'attachment' : 'inline',
        filename,
      }),
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'private, no-store',
    },
  };
}
