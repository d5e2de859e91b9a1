import {
  agentSteeringSchema,
  isEmptySteering,
  MAX_STEERING_NAMES,
  STEERING_KINDS,
  unknownSteeringNames,
  type AgentSteering,
  type AgentSummary,
  type SteeringKind,
} from '@fleet/a2a';
import { BadRequestError } from '@fleet/errors';

/** The header that steers a request's agents. */
export const FLEET_AGENTS_HEADER = 'X-Fleet-Agents';

/** The request body field that steers a request's agents, for clients that cannot set headers. */
export const FLEET_AGENTS_FIELD = 'fleet_agents';

/** Longest `X-Fleet-Agents` value read. */
const MAX_HEADER_LENGTH = 3 * MAX_STEERING_NAMES * 130;

function describeIssues(error: {
  issues: readonly { path: readonly PropertyKey[]; message: string }[];
}): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const where = issue.path.map(String).join('.');
      return where === '' ? issue.message : `${where}: ${issue.message}`;
    })
    .join('; ');
}

function checked(value: unknown, where: string): AgentSteering {
  const parsed = agentSteeringSchema.safeParse(value);
  if (!parsed.success) {
    throw new BadRequestError(`${where} is not valid: ${describeIssues(parsed.error)}.`, {
      param: where,
    });
  }
  return parsed.data;
}

/**
 * Reads `X-Fleet-Agents`: clauses separated by `;`, each `<list>=<name>,<name>…` where the list
 * is `prefer`, `require` or `exclude` (case-insensitive) and a name is an agent (`rag-agent`), an
 * agent's skill (`mail-agent/send-mail`) or a bare skill id. A list named twice is joined.
 * Spaces around names are ignored. At most 16 names a list, 128 characters a name.
 *
 * @throws BadRequestError (400) naming the clause or the name that is wrong.
 * @example
 * parseFleetAgentsHeader('prefer=rag-agent; exclude=web-agent,mail-agent/send-mail');
 * // { prefer: ['rag-agent'], exclude: ['web-agent', 'mail-agent/send-mail'] }
 */
export function parseFleetAgentsHeader(value: string | undefined): AgentSteering | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (value.length > MAX_HEADER_LENGTH) {
    throw new BadRequestError(
      `${FLEET_AGENTS_HEADER} is longer than ${MAX_HEADER_LENGTH} characters.`,
      { param: FLEET_AGENTS_HEADER },
    );
  }
  const lists: Partial<Record<SteeringKind, string[]>> = {};
  for (const clause of value.split(';')) {
    if (clause.trim() === '') continue;
    const equals = clause.indexOf('=');
    const kind = (equals === -1 ? clause : clause.slice(0, equals)).trim().toLowerCase();
    if (equals === -1 || !(STEERING_KINDS as readonly string[]).includes(kind)) {
      throw new BadRequestError(
        `${FLEET_AGENTS_HEADER}: '${clause.trim().slice(0, 64)}' is not a clause of the form <list>=<name>,<name>… with the list one of ${STEERING_KINDS.join(', ')}.`,
        { param: FLEET_AGENTS_HEADER },
      );
    }
    const names = clause
      .slice(equals + 1)
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    const list = (lists[kind as SteeringKind] ??= []);
    list.push(...names);
  }
  const steering = checked(lists, FLEET_AGENTS_HEADER);
  return isEmptySteering(steering) ? undefined : steering;
}

/**
 * Reads the body field `fleet_agents` (`{ prefer?: [...], require?: [...], exclude?: [...] }`,
 * the same names and limits as {@link parseFleetAgentsHeader}). Absent or null: undefined.
 *
 * @throws BadRequestError (400) naming what is wrong.
 */
export function parseFleetAgentsField(value: unknown): AgentSteering | undefined {
  if (value === undefined || value === null) return undefined;
  const steering = checked(value, FLEET_AGENTS_FIELD);
  return isEmptySteering(steering) ? undefined : steering;
}

/**
 * The header's and the body's steering together: each list is the union of both (each name
 * once), checked against the limits again. A name both excluded and preferred or required is
 * refused.
 *
 * @throws BadRequestError (400) for a joined list over the limit, or a contradiction.
 */
export function joinSteering(
  header: AgentSteering | undefined,
  body: AgentSteering | undefined,
): AgentSteering | undefined {
  if (header === undefined && body === undefined) return undefined;
  const joined: Partial<Record<SteeringKind, string[]>> = {};
  for (const kind of STEERING_KINDS) {
    const names = [...new Set([...(header?.[kind] ?? []), ...(body?.[kind] ?? [])])];
    if (names.length > 0) joined[kind] = names;
  }
  const steering = checked(
    joined,
    header !== undefined && body !== undefined
      ? `${FLEET_AGENTS_HEADER} with ${FLEET_AGENTS_FIELD}`
      : header !== undefined
        ? FLEET_AGENTS_HEADER
        : FLEET_AGENTS_FIELD,
  );
  const excluded = new Set(steering.exclude ?? []);
  const both = [...(steering.prefer ?? []), ...(steering.require ?? [])].filter((name) =>
    excluded.has(name),
  );
  if (both.length > 0) {
    throw new BadRequestError(
      `'${both[0]}' is both excluded and preferred or required in ${FLEET_AGENTS_HEADER} / ${FLEET_AGENTS_FIELD}.`,
      { param: FLEET_AGENTS_HEADER },
    );
  }
  return steering;
}

/**
 * Checks every name of the steering against the orchestrator's agents: an unknown one is a 400
 * naming it and listing the agents and their skills.
 *
 * @throws BadRequestError (400), `details: { unknown, known }`.
 */
export function assertKnownSteering(
  steering: AgentSteering,
  agents: readonly Pick<AgentSummary, 'name' | 'skills'>[],
): void {
  const unknown = unknownSteeringNames(steering, agents);
  if (unknown.length === 0) return;
  const known = agents.map((agent) =>
    agent.skills.length === 0
      ? agent.name
      : `${agent.name} (${agent.skills.map((skill) => skill.id).join(', ')})`,
  );
  const names = unknown.map((entry) => `'${entry.name}' (${entry.kind})`).join(', ');
  throw new BadRequestError(
    `Unknown agent or skill ${names} in ${FLEET_AGENTS_HEADER} / ${FLEET_AGENTS_FIELD}. Known agents (skills): ${known.join('; ') || 'none'}.`,
    {
      param: FLEET_AGENTS_HEADER,
      details: {
        unknown: unknown.map((entry) => entry.name),
        known: agents.map((agent) => agent.name),
      },
    },
  );
}
