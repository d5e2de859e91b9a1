/** The gateway's size limits, as clients read them in errors. */
export { describeByteSize } from './describe-byte-size';
export { ownPayloadLimit } from './own-payload-limit';
export type { OwnPayloadLimitOptions } from './own-payload-limit';
