import type { AgentSummary, Plan, PlanNode } from '@fleet/a2a';
import { maskCodeBlocks } from './code-blocks';
import { splitIntoClauses, splitIntoSegments, type RequestClause } from './split-request';
import { analyze, tokenize } from './tokenize';

/** Where in an agent's card a word matched. */
export type MatchSource = 'tag' | 'name' | 'example' | 'description';

/** One word of the request that matched an agent's card. */
export interface TermMatch {
  /** The stemmed word. */
  term: string;
  /** The request's word, as written. */
  word: string;
  source: MatchSource;
  /** The card text it matched: the tag, the name, … */
  matched: string;
  /** What it added to the score. */
  weight: number;
}

/** How well an agent fits some text. */
export interface AgentScore {
  agent: string;
  /** The best-matching skill's id, when the agent has skills. */
  skill: string | undefined;
  score: number;
  matches: TermMatch[];
}

/**
 * How much one matching word counts, by where it matched. A tag is the card's own statement of
 * what the skill is for; names come next; examples and descriptions are prose, so only weak hints.
 */
const WEIGHTS: Record<MatchSource, number> = { tag: 3, name: 2, example: 1, description: 1 };

/** Below this an agent does not count as matching a part of the request (one tag or name hit). */
export const MATCH_THRESHOLD = 2;

/** Inside one part, agents scoring under this share of the best one are dropped as noise. */
const RELATIVE_CUT = 0.5;

/** A score at which a match counts as certain (two tags). */
const STRONG_SCORE = 6;

/** planSchema's limit. */
const MAX_NODES = 32;

interface Feature {
  weight: number;
  source: MatchSource;
  matched: string;
}

interface SkillProfile {
  skill: string | undefined;
  features: Map<string, Feature>;
}

interface AgentProfile {
  name: string;
  skills: SkillProfile[];
}

function addFeatures(
  features: Map<string, Feature>,
  options: { text: string; source: MatchSource; weight?: number },
): void {
  const { text, source, weight = WEIGHTS[source] } = options;
  for (const term of tokenize(text)) {
    const known = features.get(term);
    if (!known || known.weight < weight) features.set(term, { weight, source, matched: text });
  }
}

function profileAgent(agent: AgentSummary): AgentProfile {
  const base = new Map<string, Feature>();
  addFeatures(base, { text: agent.description, source: 'description' });
  addFeatures(base, { text: agent.name, source: 'name' });
  if (agent.skills.length === 0)
    return { name: agent.name, skills: [{ skill: undefined, features: base }] };
  return {
    name: agent.name,
    skills: agent.skills.map((skill) => {
      const features = new Map(base);
      addFeatures(features, { text: skill.description, source: 'description' });
      for (const example of skill.examples)
        addFeatures(features, { text: example, source: 'example' });
      addFeatures(features, { text: skill.name, source: 'name' });
      addFeatures(features, { text: skill.id, source: 'name' });
      for (const tag of skill.tags) {
        // A multi-word tag ("knowledge base") counts as much as a one-word one when all of it matches.
        const words = Math.max(1, tokenize(tag).length);
        addFeatures(features, { text: tag, source: 'tag', weight: WEIGHTS.tag / words });
      }
      return { skill: skill.id, features };
    }),
  };
}

/** A word most agents' cards contain ("search", "answer") tells them apart poorly: it counts half. */
function documentFrequencyDiscount(profiles: readonly AgentProfile[]): (term: string) => number {
  const counts = new Map<string, number>();
  for (const profile of profiles) {
    const terms = new Set(profile.skills.flatMap((skill) => [...skill.features.keys()]));
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  const total = profiles.length;
  return (term) => (total >= 2 && (counts.get(term) ?? 0) / total > 0.5 ? 0.5 : 1);
}

function scoreProfile(options: {
  terms: ReadonlyMap<string, string>;
  profile: AgentProfile;
  discount: (term: string) => number;
}): AgentScore {
  const { terms, profile, discount } = options;
  let best: AgentScore = { agent: profile.name, skill: undefined, score: 0, matches: [] };
  for (const skill of profile.skills) {
    const matches: TermMatch[] = [];
    for (const [term, word] of terms) {
      const feature = skill.features.get(term);
      if (!feature) continue;
      matches.push({
        term,
        word,
        source: feature.source,
        matched: feature.matched,
        weight: feature.weight * discount(term),
      });
    }
    const score = matches.reduce((sum, match) => sum + match.weight, 0);
    if (score > best.score) best = { agent: profile.name, skill: skill.skill, score, matches };
  }
  if (best.skill === undefined && profile.skills.length === 1) {
    best = { ...best, skill: profile.skills[0]?.skill };
  }
  return best;
}

/** Scores every agent against `text`, best first. */
function scoreAll(options: {
  text: string;
  profiles: readonly AgentProfile[];
  discount: (term: string) => number;
}): AgentScore[] {
  const terms = new Map<string, string>();
  for (const token of analyze(options.text))
    if (!terms.has(token.term)) terms.set(token.term, token.word);
  return options.profiles
    .map((profile) => scoreProfile({ terms, profile, discount: options.discount }))
    .sort((left, right) => right.score - left.score);
}

/**
 * The agents that clearly match: over the threshold and not far behind the best. Prose (examples,
 * descriptions) only hints: beside an agent whose tags or name match, an agent matched by prose
 * alone is noise ("per year" in a question about documents is not a calculation).
 */
function pickMatches(scores: readonly AgentScore[]): AgentScore[] {
  const best = scores[0]?.score ?? 0;
  const clear = scores.filter(
    (score) => score.score >= MATCH_THRESHOLD && score.score >= best * RELATIVE_CUT,
  );
  const named = clear.filter((score) =>
    score.matches.some((match) => match.source === 'tag' || match.source === 'name'),
  );
  return named.length > 0 ? named : clear;
}

/**
 * Scores each agent's card against `text`: every distinct word of the text that appears in the
 * card adds the weight of where it appears (tag 3, skill or agent name 2, example or description
 * 1; a word most agents share counts half). The best skill of each agent is kept. Best first.
 *
 * @example
 * scoreAgents({ text: 'search the web for X', agents })[0]; // { agent: 'web', skill: 'web-search', score: 4.5, … }
 */
export function scoreAgents({
  text,
  agents,
}: {
  text: string;
  agents: readonly AgentSummary[];
}): AgentScore[] {
  const profiles = agents.map(profileAgent);
  return scoreAll({ text, profiles, discount: documentFrequencyDiscount(profiles) });
}

interface Assignment {
  text: string;
  match: AgentScore;
  /** Under the threshold: the clause's closest agent, taken because nothing matched clearly. */
  weak: boolean;
}

/**
 * One clause's agents: each part of the clause goes to the agents that clearly match it; when no
 * part and not the clause as a whole matches clearly, the closest agent (any match at all) takes
 * the whole clause.
 */
function assignClause(options: {
  clause: string;
  profiles: readonly AgentProfile[];
  discount: (term: string) => number;
}): Assignment[] {
  const { clause, profiles, discount } = options;
  const score = (text: string): AgentScore[] => scoreAll({ text, profiles, discount });
  // Parts nobody matches ("B" in "compare A and B") join their neighbour, so that no words are lost.
  const groups: { start: number; end: number }[] = [];
  let pendingStart: number | undefined;
  for (const segment of splitIntoSegments(clause)) {
    const matched = pickMatches(score(clause.slice(segment.start, segment.end))).length > 0;
    const start = pendingStart ?? segment.start;
    const previous = groups.at(-1);
    if (matched) {
      groups.push({ start, end: segment.end });
      pendingStart = undefined;
    } else if (previous) previous.end = segment.end;
    else pendingStart = start;
  }
  if (groups.length > 0) {
    return groups.flatMap(({ start, end }) => {
      const text = clause.slice(start, end);
      return pickMatches(score(text)).map((match) => ({ text, match, weak: false }));
    });
  }
  // Evidence spread over several parts ("the internal wiki, the docs") still counts as a whole.
  const whole = score(clause);
  const clear = pickMatches(whole);
  if (clear.length > 0) return clear.map((match) => ({ text: clause, match, weak: false }));
  // A weak match needs a word of the card's own statement (name, tag, description): words of its
  // example sentences alone ("last" of "what did I send last week?") are chance.
  const closest = whole.find((score) => score.matches.some((match) => match.source !== 'example'));
  return closest && closest.score > 0 ? [{ text: clause, match: closest, weak: true }] : [];
}

/** The tag by which an agent says it answers from the tenant's own knowledge (documents). */
export const KNOWLEDGE_TAG = 'knowledge';

/**
 * The skill that takes a request no agent matches: the first skill tagged `knowledge`. A
 * question nothing else claims ("How long is the probation period?") is most likely about the
 * tenant's own documents.
 */
function knowledgeSkill(agents: readonly AgentSummary[]): AgentScore | undefined {
  for (const agent of agents) {
    const skill = agent.skills.find((entry) => entry.tags.includes(KNOWLEDGE_TAG));
    if (skill !== undefined) return { agent: agent.name, skill: skill.id, score: 0, matches: [] };
  }
  return undefined;
}

function nodeIdPrefix(agent: string): string {
  const slug = agent
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 56);
  return slug === '' ? 'step' : slug;
}

const QUESTION_START =
  /^(?:what|who|whom|whose|which|when|where|why|how|is|are|was|were|do|does|did|can|could|should|will|would)\b/i;

const LEADING_FILLER = /^(?:(?:and|also|then|please|first|plus|so|now)\b[\s,]*)+/i;

/** The node's instruction: the part of the request, as a sentence, pointing at its inputs. */
function phraseTask(text: string, dependsOn: readonly string[]): string {
  let task = text
    .trim()
    .replace(LEADING_FILLER, '')
    .replace(/[\s,;:]+$/, '');
  if (task === '') task = text.trim();
  task = task.charAt(0).toUpperCase() + task.slice(1);
  // A task that ends with a quoted program ends there: punctuation would land after its fence.
  if (!/[.!?⟧]$/.test(task)) task += QUESTION_START.test(task) ? '?' : '.';
  if (dependsOn.length === 0) return task;
  const steps = dependsOn.length === 1 ? `step ${dependsOn[0]}` : `steps ${dependsOn.join(', ')}`;
  return `${task} Use the results of ${steps} as input.`;
}

function describeMatch(match: AgentScore): string {
  const bySource = new Map<MatchSource, Set<string>>();
  for (const term of match.matches) {
    const seen = bySource.get(term.source) ?? new Set<string>();
    // Tags and names are shown as the card has them; prose matches by the request's word.
    seen.add(term.source === 'tag' || term.source === 'name' ? term.matched : term.word);
    bySource.set(term.source, seen);
  }
  const labels: Record<MatchSource, string> = {
    tag: 'tags',
    name: 'name',
    example: 'examples',
    description: 'description',
  };
  const order: MatchSource[] = ['tag', 'name', 'example', 'description'];
  const parts = order.flatMap((source) => {
    const terms = bySource.get(source);
    return terms ? [`${labels[source]} ${[...terms].map((term) => `"${term}"`).join(', ')}`] : [];
  });
  return `${match.agent}${match.skill ? `/${match.skill}` : ''} (${parts.join('; ')})`;
}

function confidenceOf(matches: readonly AgentScore[]): number {
  if (matches.length === 0) return 0;
  const strength =
    matches.reduce((sum, match) => sum + Math.min(1, match.score / STRONG_SCORE), 0) /
    matches.length;
  // A keyword plan is never certain: it stays between 0.2 and 0.8.
  return Math.round((0.2 + 0.6 * strength) * 100) / 100;
}

function quote(text: string): string {
  return `"${text.length > 80 ? `${text.slice(0, 77)}...` : text}"`;
}

/** Options for {@link planHeuristically}. */
export interface HeuristicPlanOptions {
  request: string;
  agents: readonly AgentSummary[];
}

/**
 * The planner that needs no LLM (offline mode, and the fallback when the LLM's plan is unusable).
 * It scores every agent's skills against the request (see {@link scoreAgents}), splits the request
 * into clauses at ordering words ("then", "after that", "finally", "based on", …; see
 * `splitIntoClauses`), and builds the DAG from them:
 *
 * - inside a clause, each part ("search the web for X", "look up our docs on Y") goes to every
 *   agent that clearly matches it, and those nodes run in parallel;
 * - clauses run in order: each clause's nodes depend on the nodes of the clause before;
 * - a clause no agent clearly matches goes whole to its closest agent, if any word matches at
 *   all; a clause nothing matches is skipped (the chain goes on from the clause before it), and
 *   when nothing in the request matches, the plan is empty with confidence 0.
 *
 * The rationale says which words matched which agent; the confidence (0.2–0.8) grows with the
 * match strength. Pure and deterministic.
 *
 * @example
 * planHeuristically({ request: 'find X in our documents, then email a summary to bob@example.com', agents });
 * // rag-1 → mail-1
 */
export function planHeuristically({ request, agents }: HeuristicPlanOptions): Plan {
  if (agents.length === 0) {
    return {
      nodes: [],
      rationale: 'No agents are available, so there is nothing to plan.',
      confidence: 0,
    };
  }
  const profiles = agents.map(profileAgent);
  const discount = documentFrequencyDiscount(profiles);
  const masked = maskCodeBlocks(request);
  const clauses: RequestClause[] = splitIntoClauses(masked.text);
  const nodes: PlanNode[] = [];
  const used: AgentScore[] = [];
  const steps: string[] = [];
  const counters = new Map<string, number>();
  let previous: string[] = [];
  let truncated = false;

  for (const clause of clauses) {
    const assignments = assignClause({ clause: clause.text, profiles, discount });
    if (assignments.length === 0) continue;
    const ids: string[] = [];
    const described: string[] = [];
    for (const { text, match, weak } of assignments) {
      if (nodes.length >= MAX_NODES) {
        truncated = true;
        break;
      }
      const prefix = nodeIdPrefix(match.agent);
      const count = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, count);
      const id = `${prefix}-${count}`;
      nodes.push({
        id,
        agent: match.agent,
        ...(match.skill ? { skill: match.skill } : {}),
        task: masked.restore(phraseTask(text, previous)),
        dependsOn: previous,
      });
      ids.push(id);
      used.push(match);
      const strength = weak ? ' (a weak match: nothing fits better)' : '';
      described.push(`${id} = ${describeMatch(match)}${strength} for ${quote(text.trim())}`);
    }
    if (ids.length === 0) break;
    const order =
      previous.length === 0
        ? ''
        : ` after ${previous.join(', ')} (the request says "${clause.marker ?? 'then'}")`;
    const parallel = ids.length > 1 ? ', in parallel' : '';
    steps.push(`Step ${steps.length + 1}${order}${parallel}: ${described.join('; ')}.`);
    previous = ids;
  }

  const knowledge = nodes.length === 0 ? knowledgeSkill(agents) : undefined;
  if (knowledge !== undefined) {
    const id = `${nodeIdPrefix(knowledge.agent)}-1`;
    return {
      nodes: [
        {
          id,
          agent: knowledge.agent,
          skill: knowledge.skill,
          task: masked.restore(phraseTask(masked.text, [])),
          dependsOn: [],
        },
      ],
      rationale: `No agent's card matches the request, so it goes to ${id} = ${knowledge.agent} (${knowledge.skill}), the skill tagged "${KNOWLEDGE_TAG}": a request nothing else claims is most likely about the tenant's own documents.`,
      confidence: 0.2,
    };
  }
  if (nodes.length === 0) {
    return {
      nodes: [],
      rationale: `No agent fits the request: none of its words appear in the names, tags, examples or descriptions of ${agents.map((agent) => agent.name).join(', ')}.`,
      confidence: 0,
    };
  }

  const limit = truncated ? ` The plan stops at ${MAX_NODES} steps.` : '';
  return {
    nodes,
    rationale: `Heuristic plan from keyword matches against the agents' skills. ${steps.join(' ')}${limit}`,
    confidence: confidenceOf(used),
  };
}
