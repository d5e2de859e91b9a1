/**
 * How the heuristic planner reads MCP tool skills (the tools agent's card: one skill per tool, id
 * `<server>/<tool>`, the tool's description, tags `mcp`, `mcp-server:<server>`,
 * `approval:required|none`). A tool's name says what it does in words joined by `_`, `-` or
 * capitals (`list_directory`, `readGraph`); its server's name says what it works on (`filesystem`,
 * `postgres`); its description is long prose whose single words prove little but whose phrases
 * (`knowledge graph`) do.
 */
import { MCP_SKILL_TAG, parseToolSkillId, toolApprovalOf } from '@fleet/a2a';
import { analyze, tokenize } from './tokenize';

/** What a tool skill brings to matching, beyond its words. */
export interface ToolSkillProfile {
  /** The stemmed words of the tool's name and title. */
  nameTerms: Set<string>;
  /** The stemmed words of the server's name and of what a server of that kind works on. */
  serverTerms: Set<string>;
  /** Adjacent word pairs of the description (`knowledg chart` for "knowledge graph"). */
  phrases: Set<string>;
  /** Lower-cased ways a request names the tool outright: `server/tool`, and a distinctive bare name. */
  explicitNames: string[];
  /** Whether a call needs no approval (`approval:none`): preferred when tools tie. */
  approvalFree: boolean;
  /** Whether the description says the tool is deprecated: passed over when another fits as well. */
  deprecated: boolean;
}

/** `readGraph` → `read Graph`, `HTTPServer` → `HTTP Server`: words a camel-cased name joins. */
export function splitIdentifier(name: string): string {
  return name
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/[_\-./:]+/g, ' ');
}

/**
 * What servers of a well-known kind work on, by their name: a filesystem server's tools work on
 * files and directories, a database server's on tables through SQL.
 */
const SERVER_KINDS: readonly { pattern: RegExp; words: string }[] = [
  { pattern: /file|^fs$|disk|drive/i, words: 'files directory' },
  {
    pattern: /postgres|pg$|mysql|maria|sqlite|sql|^db$|database|warehouse/i,
    words: 'database sql table',
  },
  { pattern: /memory|knowledge|graph/i, words: 'memory knowledge graph' },
];

function isDistinctive(tool: string): boolean {
  return tool.length >= 5 && (/[_-]/.test(tool) || /\p{Ll}\p{Lu}/u.test(tool));
}

/**
 * The tool profile of a skill tagged `mcp` whose id is `<server>/<tool>`; undefined for any other
 * skill.
 *
 * @example
 * toolSkillProfile({ id: 'filesystem/list_directory', name: 'List Directory', description: '…', tags: ['mcp'] })?.nameTerms;
 * // Set { 'list', 'directory' }
 */
export function toolSkillProfile(skill: {
  id: string;
  name: string;
  description: string;
  tags: readonly string[];
}): ToolSkillProfile | undefined {
  if (!skill.tags.includes(MCP_SKILL_TAG)) return undefined;
  const parsed = parseToolSkillId(skill.id);
  if (parsed === undefined) return undefined;
  const { server, tool } = parsed;
  const nameTerms = new Set([
    ...tokenize(splitIdentifier(tool)),
    ...tokenize(splitIdentifier(skill.name.replace(/\([^)]*\)/g, ' '))),
  ]);
  const serverTerms = new Set(tokenize(splitIdentifier(server)));
  for (const kind of SERVER_KINDS) {
    if (kind.pattern.test(server)) for (const term of tokenize(kind.words)) serverTerms.add(term);
  }
  const terms = tokenize(skill.description);
  const phrases = new Set(terms.slice(1).map((term, index) => `${terms[index]} ${term}`));
  const lowerId = skill.id.toLowerCase();
  return {
    nameTerms,
    serverTerms,
    phrases,
    explicitNames: isDistinctive(tool) ? [lowerId, tool.toLowerCase()] : [lowerId],
    approvalFree: toolApprovalOf(skill.tags) === 'none',
    deprecated: /\bdeprecated\b/i.test(skill.description) || /\bdeprecated\b/i.test(skill.name),
  };
}

/**
 * Adjacent pairs of a text's terms, as {@link ToolSkillProfile.phrases} holds them, each with the
 * words as written.
 *
 * @example
 * termPairs('the knowledge graph'); // Map { 'knowledg chart' => 'knowledge graph' }
 */
export function termPairs(text: string): Map<string, string> {
  const tokens = analyze(text);
  const pairs = new Map<string, string>();
  tokens.slice(1).forEach((token, index) => {
    const before = tokens[index];
    if (before !== undefined)
      pairs.set(`${before.term} ${token.term}`, `${before.word} ${token.word}`);
  });
  return pairs;
}

/** Whether `text` names the tool outright (`filesystem/list_directory`, `list_directory`). */
export function namesTool(text: string, profile: ToolSkillProfile): string | undefined {
  const lower = text.toLowerCase();
  return profile.explicitNames.find((name) => {
    const escaped = name.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
    return new RegExp(`(?<![\\w/-])${escaped}(?![\\w-])`).test(lower);
  });
}
