/**
 * The request headers that name who is asking and how the request is routed: each must be sent at
 * most once. Node joins a repeated custom header into one value (`X-Fleet-User: alice` twice with
 * `bob` reads as the user `alice, bob`) and keeps only the first `Authorization`, so a repeat is
 * refused with 400 before the request is authenticated ({@link assertHeadersSentOnce} from
 * `@fleet/http`; docs/security.md).
 */
export const SINGLE_HEADERS = [
  'Authorization',
  'X-Fleet-User',
  'X-Routing-Mode',
  'X-Session-ID',
  'X-Plan-Approval',
  'X-Low-Confidence',
  'X-Fleet-Agents',
] as const;
