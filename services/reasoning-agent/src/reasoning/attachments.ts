import type {
  ChatCompletionContentPart,
  ChatCompletionContentPartText,
} from 'openai/resources/chat/completions';
import { checkRunFile, cleanRunFileName, isInlineImage, type Part } from '@fleet/a2a';

/** Most files of one message the reasoning agent reads when REASONING_MAX_ATTACHMENTS is unset. */
export const DEFAULT_MAX_ATTACHMENTS = 8;
/** Bytes of all files of one message together it reads when REASONING_MAX_ATTACHMENT_BYTES is unset. */
export const DEFAULT_MAX_ATTACHMENT_BYTES = 8 * 1024 * 1024;
/** Bytes of one text file the model is shown; the rest is cut, and the model told so. */
export const MAX_ATTACHMENT_TEXT_BYTES = 64 * 1024;

/** How many files, and how many bytes, one message's attachments may take. */
export interface AttachmentLimits {
  /** Files read; later ones are only named. */
  maxFiles: number;
  /** Bytes read in all; a file that would pass it is only named. */
  maxTotalBytes: number;
}

/** A file that came with the question, as the model gets it. */
export type Attachment =
  | {
      kind: 'image';
      name: string;
      mediaType: string;
      size: number;
      /** `data:<mediaType>;base64,<bytes>` */
      dataUrl: string;
    }
  | {
      kind: 'text';
      name: string;
      mediaType: string;
      size: number;
      /** The text, at most {@link MAX_ATTACHMENT_TEXT_BYTES} of it. */
      text: string;
      /** True when the file was longer than what `text` holds. */
      cut: boolean;
    }
  | {
      kind: 'other';
      name: string;
      mediaType: string;
      size: number;
      /** Why the model is not shown it. */
      reason: string;
    };

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** "chart.png (image/png, 3.2 KiB)" */
export function describeAttachment(attachment: Attachment): string {
  return `${attachment.name} (${attachment.mediaType}, ${formatSize(attachment.size)})`;
}

function isTextLike(mediaType: string): boolean {
  return mediaType.startsWith('text/') || mediaType === 'application/json';
}

/** The decoded size of base64 text, without decoding it. */
function base64Size(raw: string): number {
  const compact = raw.replace(/\s+/g, '');
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((compact.length * 3) / 4) - padding);
}

/** Decodes UTF-8 text, at most `maxBytes` of it, never ending in half a character. */
function decodeText(bytes: Buffer, maxBytes: number): { text: string; cut: boolean } {
  if (bytes.byteLength <= maxBytes) return { text: bytes.toString('utf8'), cut: false };
  let end = maxBytes;
  // Back up over continuation bytes (10xxxxxx) to the start of the cut character.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return { text: bytes.subarray(0, end).toString('utf8'), cut: true };
}

/**
 * The files a message to the reasoning agent carries (file parts with `raw` bytes), in order, as
 * the model gets them: PNG, JPEG, GIF and WebP images whose bytes are what their type says
 * ({@link checkRunFile}) as `image`s; text files (`text/*`, `application/json`) as `text`, the
 * first {@link MAX_ATTACHMENT_TEXT_BYTES} of each; anything else, and every file past `limits`
 * (count, or bytes in all), as `other` with the reason, to be named only. Names are cleaned
 * ({@link cleanRunFileName}). URL parts are named too: the agent fetches nothing.
 *
 * @example
 * const attachments = readAttachments(context.message.parts, { maxFiles: 8, maxTotalBytes: 8 * 1024 * 1024 });
 */
export function readAttachments(parts: readonly Part[], limits: AttachmentLimits): Attachment[] {
  const attachments: Attachment[] = [];
  let total = 0;
  for (const part of parts) {
    if (part.raw === undefined && part.url === undefined) continue;
    const name = cleanRunFileName(part.filename, `file-${attachments.length + 1}`);
    const claimed =
      part.mediaType?.split(';')[0]?.trim().toLowerCase() || 'application/octet-stream';
    if (part.raw === undefined) {
      attachments.push({
        kind: 'other',
        name,
        mediaType: claimed,
        size: 0,
        reason: 'a link, which the reasoning agent does not fetch',
      });
      continue;
    }
    const size = base64Size(part.raw);
    if (attachments.length >= limits.maxFiles) {
      attachments.push({
        kind: 'other',
        name,
        mediaType: claimed,
        size,
        reason: `past the ${limits.maxFiles} files one question may bring`,
      });
      continue;
    }
    if (total + size > limits.maxTotalBytes) {
      attachments.push({
        kind: 'other',
        name,
        mediaType: claimed,
        size,
        reason: `past the ${formatSize(limits.maxTotalBytes)} one question's files may take in all`,
      });
      continue;
    }
    total += size;
    const bytes = Buffer.from(part.raw, 'base64');
    const check = checkRunFile({ name, mediaType: claimed, bytes });
    const mediaType = check.ok ? check.mediaType : claimed;
    if (check.ok && isInlineImage(mediaType)) {
      attachments.push({
        kind: 'image',
        name,
        mediaType,
        size: bytes.byteLength,
        dataUrl: `data:${mediaType};base64,${bytes.toString('base64')}`,
      });
    } else if (isTextLike(mediaType)) {
      const { text, cut } = decodeText(bytes, MAX_ATTACHMENT_TEXT_BYTES);
      attachments.push({ kind: 'text', name, mediaType, size: bytes.byteLength, text, cut });
    } else {
      attachments.push({
        kind: 'other',
        name,
        mediaType,
        size: bytes.byteLength,
        reason: check.ok ? 'not readable here' : check.reason,
      });
    }
  }
  return attachments;
}

/**
 * The content parts that put a question's attachments before the model: each text file as a text
 * part naming it (and saying when it was cut), each image as an `image_url` part with its data
 * URL, and one text part naming the files attached but not readable here.
 */
export function attachmentContent(attachments: readonly Attachment[]): ChatCompletionContentPart[] {
  const content: ChatCompletionContentPart[] = [];
  for (const attachment of attachments) {
    if (attachment.kind === 'text') {
      const cut = attachment.cut
        ? ` It was cut: only its first ${formatSize(MAX_ATTACHMENT_TEXT_BYTES)} are shown.`
        : '';
      content.push({
        type: 'text',
        text: `Attached file ${describeAttachment(attachment)}:${cut}\n<file name="${attachment.name}">\n${attachment.text}\n</file>`,
      });
    } else if (attachment.kind === 'image') {
      content.push({ type: 'text', text: `Attached image ${describeAttachment(attachment)}:` });
      content.push({ type: 'image_url', image_url: { url: attachment.dataUrl } });
    }
  }
  const unread = attachments.filter((attachment) => attachment.kind === 'other');
  if (unread.length > 0) {
    const note: ChatCompletionContentPartText = {
      type: 'text',
      text: `Attached, not readable here: ${unread
        .map((attachment) => `${describeAttachment(attachment)}: ${attachment.reason}`)
        .join('; ')}.`,
    };
    content.push(note);
  }
  return content;
}
