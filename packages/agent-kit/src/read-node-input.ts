import { z } from 'zod';
import { nodeInputSchema, type NodeInput, type Part } from '@fleet/a2a';
import { validationErrorFromZod } from '@fleet/errors';

const hasFleet = z.looseObject({ fleet: z.unknown() });

/** The fleet node input of a message: absent (a plain A2A client), valid, or invalid with why. */
export type NodeInputRead =
  | { kind: 'absent' }
  | { kind: 'node'; node: NodeInput['fleet'] }
  | { kind: 'invalid'; reason: string };

/**
 * Finds the orchestrator's node input (the data part `{ fleet: … }`) among a message's parts and
 * validates it. A message without one comes from a plain A2A client; one that is there must be
 * valid, and the reason says which field is wrong.
 *
 * @example
 * const read = readNodeInput(context.message.parts);
 * if (read.kind === 'invalid') { yield rejected(read.reason); return; }
 */
export function readNodeInput(parts: readonly Part[]): NodeInputRead {
  const data = parts.find((part) => hasFleet.safeParse(part.data).success)?.data;
  if (data === undefined) return { kind: 'absent' };
  const parsed = nodeInputSchema.safeParse(data);
  if (!parsed.success) {
    return {
      kind: 'invalid',
      reason: validationErrorFromZod(parsed.error, { subject: 'The fleet data part' }).message,
    };
  }
  return { kind: 'node', node: parsed.data.fleet };
}
