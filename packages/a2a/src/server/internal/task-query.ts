import { InvalidParamsError } from '../../errors/a2a-errors';
import type { Task } from '../../schemas/core';
import type { TaskQuery } from '../task-store';

/** Decodes a page token (a base64url offset). */
export function decodePageToken(token: string | undefined): number {
  if (token === undefined || token === '') return 0;
  const offset = Number(Buffer.from(token, 'base64url').toString('utf8'));
  if (!Number.isInteger(offset) || offset < 0 || encodePageToken(offset) !== token) {
    throw new InvalidParamsError('The pageToken is not one this server issued.');
  }
  return offset;
}

/** Encodes an offset as a page token. */
export function encodePageToken(offset: number): string {
  return Buffer.from(String(offset), 'utf8').toString('base64url');
}

/** Milliseconds of a task's status timestamp (0 when it has none). */
export function statusTime(task: Task): number {
  const time = task.status.timestamp === undefined ? NaN : Date.parse(task.status.timestamp);
  return Number.isNaN(time) ? 0 : time;
}

/** True when a task passes the query's filters. */
export function matchesQuery(task: Task, query: TaskQuery): boolean {
  if (query.contextId !== undefined && task.contextId !== query.contextId) return false;
  if (query.status !== undefined && task.status.state !== query.status) return false;
  if (query.statusTimestampAfter !== undefined) {
    const after = Date.parse(query.statusTimestampAfter);
    if (!Number.isNaN(after) && statusTime(task) <= after) return false;
  }
  return true;
}
