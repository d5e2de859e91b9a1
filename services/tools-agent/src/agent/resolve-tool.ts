import { parseToolSkillId } from '@fleet/a2a';
import type { CatalogTool } from '../servers';

/** Which tool a step names. */
export type NamedTool =
  | { kind: 'tool'; tool: CatalogTool }
  /** A skill or `<server>/<tool>` of a known server that no started server offers. */
  | { kind: 'unknown'; name: string }
  /** Several tools are named (or a bare name several servers share). */
  | { kind: 'ambiguous'; candidates: CatalogTool[] }
  | { kind: 'none' };

/** Characters inside a name or a path; a '.' only counts when more of the name follows it. */
const INNER = /[A-Za-z0-9_:/-]/;

function clearBefore(character: string | undefined): boolean {
  return character === undefined || !(INNER.test(character) || character === '.');
}

function clearAfter(text: string, index: number): boolean {
  const character = text[index];
  if (character === undefined) return true;
  if (character === '.') return clearBefore(text[index + 1]);
  return !INNER.test(character);
}

/** True when `name` occurs in `text` as a whole token (not inside a longer name or path). */
function mentions(text: string, name: string): boolean {
  for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + 1)) {
    if (clearBefore(at === 0 ? undefined : text[at - 1]) && clearAfter(text, at + name.length)) {
      return true;
    }
  }
  return false;
}

/**
 * The tool a step names: the plan's skill when it is a tool skill id; otherwise `<server>/<tool>`
 * in the text; otherwise a bare tool name in the text that only one server has. A
 * `<server>/<tool>` of a configured server that offers no such tool is `unknown`.
 *
 * @example
 * resolveTool(catalog.tools(), { skill: undefined, text: 'memory/read_graph {}' });
 */
export function resolveTool(
  tools: readonly CatalogTool[],
  { skill, text }: { skill: string | undefined; text: string },
): NamedTool {
  if (skill !== undefined && parseToolSkillId(skill) !== undefined) {
    const found = tools.find((entry) => entry.skillId === skill);
    return found === undefined ? { kind: 'unknown', name: skill } : { kind: 'tool', tool: found };
  }
  const qualified = tools.filter((entry) => mentions(text, entry.skillId));
  if (qualified.length === 1 && qualified[0] !== undefined) {
    return { kind: 'tool', tool: qualified[0] };
  }
  if (qualified.length > 1) return { kind: 'ambiguous', candidates: qualified };
  const servers = new Set(tools.map((entry) => entry.server));
  for (const match of text.matchAll(/[A-Za-z0-9_.-]+\/[A-Za-z0-9_.:-]+/g)) {
    const named = parseToolSkillId(match[0].replace(/\.$/, ''));
    if (named !== undefined && servers.has(named.server) && clearBefore(text[match.index - 1])) {
      return { kind: 'unknown', name: `${named.server}/${named.tool}` };
    }
  }
  const bare = tools.filter((entry) => mentions(text, entry.tool.name));
  if (bare.length === 1 && bare[0] !== undefined) return { kind: 'tool', tool: bare[0] };
  if (bare.length > 1) return { kind: 'ambiguous', candidates: bare };
  return { kind: 'none' };
}
