import {
  MAX_NODE_FILES,
  resolveSteeringName,
  stepMatchesTarget,
  type PlanRequest,
  type AgentAvailability,
  type AgentSummary,
  type Plan,
  type PlanNode,
} from '@fleet/a2a';
import { maskCodeBlocks, type MaskedRequest } from './code-blocks';
import { namedFiles } from './named-files';
import {
  splitIntoClauses,
  splitIntoSegments,
  type ClauseSegment,
  type RequestClause,
} from './split-request';
import {
  asksOwnDocuments,
  impliedConcepts,
  isQuestion,
  refersBack,
  startsNewPart,
} from './request-cues';
import { analyze, tokenize } from './tokenize';
import { namesTool, termPairs, toolSkillProfile, type ToolSkillProfile } from './tool-skills';

/**
 * Where in an agent's card a word matched; `phrase` is two adjacent words of the request found
 * together in an MCP tool's description ("knowledge graph").
 */
export type MatchSource = 'tag' | 'name' | 'example' | 'description' | 'phrase';

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
const WEIGHTS: Record<MatchSource, number> = {
  tag: 3,
  name: 2,
  example: 1,
  description: 1,
  phrase: 2,
};

/** What an MCP tool's server name (and the kind of thing it works on) counts per word. */
const SERVER_WEIGHT = 1.5;

/** What naming a tool outright (`filesystem/list_directory`) counts: more than any card words. */
const NAMED_TOOL_WEIGHT = 10;

/**
 * Distinct words (or phrases) of its name, server or description a request must share with an MCP
 * tool before they count as evidence: a tool's name is made of common words ("list_allowed_directories"
 * would take "is remote work allowed?"), so one of them alone proves nothing.
 */
const TOOL_SIGNALS_NEEDED = 2;

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
  /** Set for an MCP tool skill (tagged `mcp`). */
  tool?: ToolSkillProfile | undefined;
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
    skills: agent.skills.map((skill): SkillProfile => {
      const features = new Map(base);
      const tool = toolSkillProfile(skill);
      if (tool !== undefined) return profileToolSkill(skill, { base, tool });
      addFeatures(features, { text: skill.description, source: 'description' });
      for (const example of skill.examples)
        addFeatures(features, { text: example, source: 'example' });
      // A name's aside ("Send a mail (needs approval)") is a remark, not what the skill is for.
      addFeatures(features, { text: skill.name.replace(/\([^)]*\)/g, ' '), source: 'name' });
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

/**
 * An MCP tool skill: its description is prose, its name's words are what it does, its server's
 * name (and the kind of thing such a server works on) is a weaker statement; its tags (`mcp`,
 * `mcp-server:…`, `approval:…`) are bookkeeping, not words a request uses.
 */
function profileToolSkill(
  skill: AgentSummary['skills'][number],
  { base, tool }: { base: ReadonlyMap<string, Feature>; tool: ToolSkillProfile },
): SkillProfile {
  const features = new Map(base);
  addFeatures(features, { text: skill.description, source: 'description' });
  for (const term of tool.serverTerms) {
    const known = features.get(term);
    if (!known || known.weight < SERVER_WEIGHT)
      features.set(term, {
        weight: SERVER_WEIGHT,
        source: 'tag',
        matched: skill.tags.find((tag) => tag.startsWith('mcp-server:')) ?? skill.id,
      });
  }
  for (const term of tool.nameTerms) {
    const known = features.get(term);
    if (!known || known.weight < WEIGHTS.name)
      features.set(term, { weight: WEIGHTS.name, source: 'name', matched: skill.id });
  }
  return { skill: skill.id, features, tool };
}

/**
 * The matches of an MCP tool skill: naming the tool outright decides; phrases of its description
 * count; and its name and server words count as evidence only when enough of them match (see
 * {@link TOOL_SIGNALS_NEEDED}), otherwise as prose.
 */
function toolMatches(options: {
  matches: TermMatch[];
  tool: ToolSkillProfile;
  skill: string | undefined;
  text: string;
  pairs: ReadonlyMap<string, string>;
}): TermMatch[] {
  const { tool, skill, text, pairs } = options;
  const matches = [...options.matches];
  const named = namesTool(text, tool);
  if (named !== undefined) {
    matches.push({
      term: named,
      word: named,
      source: 'name',
      matched: skill ?? named,
      weight: NAMED_TOOL_WEIGHT,
    });
    return matches;
  }
  for (const [pair, words] of pairs) {
    if (tool.phrases.has(pair))
      matches.push({
        term: pair,
        word: words,
        source: 'phrase',
        matched: words,
        weight: WEIGHTS.phrase,
      });
  }
  const own = (match: TermMatch): boolean =>
    match.source === 'phrase' ||
    ((match.source === 'name' || match.source === 'tag') &&
      (tool.nameTerms.has(match.term) || tool.serverTerms.has(match.term)));
  const signals = new Set(matches.filter(own).map((match) => match.term)).size;
  if (signals >= TOOL_SIGNALS_NEEDED) return matches;
  return matches.map((match) =>
    own(match) ? { ...match, source: 'description', weight: WEIGHTS.description } : match,
  );
}

/** What a question leaves of a tool's fit when the tool needs approval: a question reads, it does not change. */
const QUESTION_WRITE_SHARE = 0.25;

/**
 * How well a skill fits, to choose among one agent's skills: its stated weight (tags and names);
 * for MCP tools also how much of the tool's name the request covers ("list_directory" over
 * "list_directory_with_sizes"), then a tool that needs no approval (by far, when the request is a
 * question), and never a deprecated one when another fits as well.
 */
function skillFit(
  matches: readonly TermMatch[],
  {
    tool,
    question,
    firstTerm,
  }: { tool: ToolSkillProfile | undefined; question: boolean; firstTerm: string | undefined },
): number {
  const stated = statedWeight(matches);
  if (tool === undefined || stated === 0) return stated;
  if (
    question &&
    !tool.approvalFree &&
    !matches.some((match) => match.weight === NAMED_TOOL_WEIGHT)
  )
    return stated * QUESTION_WRITE_SHARE;
  const covered = [...tool.nameTerms].filter((term) =>
    matches.some((match) => match.term === term && match.source === 'name'),
  ).length;
  const coverage = tool.nameTerms.size === 0 ? 0 : covered / tool.nameTerms.size;
  // The verb the request opens with names what to do ("move notes/a.md …" is move_file).
  const verb =
    firstTerm !== undefined && tool.nameTerms.has(firstTerm) ? LEADING_VERB_BONUS * 2 : 0;
  return (
    stated + verb + coverage * 0.5 + (tool.approvalFree ? 0.25 : 0) - (tool.deprecated ? 1 : 0)
  );
}

/** A word most agents' cards contain ("search", "answer") tells them apart poorly: it counts half. */
function documentFrequencyDiscount(profiles: readonly AgentProfile[]): (term: string) => number {
  const counts = new Map<string, number>();
  for (const profile of profiles) {
    // Only what the cards state (tags and names): prose boilerplate ("Send a text part …") is not a
    // statement of what an agent does.
    const terms = new Set(
      profile.skills.flatMap((skill) =>
        [...skill.features.entries()]
          .filter(([, feature]) => feature.source === 'tag' || feature.source === 'name')
          .map(([term]) => term),
      ),
    );
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  const total = profiles.length;
  return (term) => (total >= 2 && (counts.get(term) ?? 0) / total > 0.5 ? 0.5 : 1);
}

/** Whether a match is the card's statement of what an agent does (tags, names, tool phrases). */
function isStated(match: TermMatch): boolean {
  return match.source === 'tag' || match.source === 'name' || match.source === 'phrase';
}

function statedWeight(matches: readonly TermMatch[]): number {
  return matches.reduce((sum, match) => sum + (isStated(match) ? match.weight : 0), 0);
}

function scoreProfile(options: {
  terms: ReadonlyMap<string, string>;
  profile: AgentProfile;
  discount: (term: string) => number;
  /** The request's text and adjacent term pairs, for MCP tool skills. */
  text: string;
  pairs: ReadonlyMap<string, string>;
  /** Whether the request is a question. */
  question: boolean;
  /** The request's first term (its verb, in an instruction). */
  firstTerm: string | undefined;
}): AgentScore {
  const { terms, profile, discount, text, pairs, question, firstTerm } = options;
  let best: AgentScore = { agent: profile.name, skill: undefined, score: 0, matches: [] };
  let bestFit = 0;
  for (const skill of profile.skills) {
    let matches: TermMatch[] = [];
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
    if (skill.tool !== undefined)
      matches = toolMatches({ matches, tool: skill.tool, skill: skill.skill, text, pairs });
    const score = matches.reduce((sum, match) => sum + match.weight, 0);
    // The skill whose tags and names match best; prose only breaks ties.
    const fit = skillFit(matches, { tool: skill.tool, question, firstTerm });
    if (fit > bestFit || (fit === bestFit && score > best.score)) {
      best = { agent: profile.name, skill: skill.skill, score, matches };
      bestFit = fit;
    }
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
  // Figures imply what the request does not say: "17% of 2,340" is a calculation.
  for (const concept of impliedConcepts(options.text))
    for (const term of tokenize(concept)) if (!terms.has(term)) terms.set(term, concept);
  const pairs = termPairs(options.text);
  const question = isQuestion(options.text);
  const firstTerm = analyze(options.text)[0]?.term;
  return options.profiles
    .map((profile) =>
      scoreProfile({
        terms,
        profile,
        discount: options.discount,
        text: options.text,
        pairs,
        question,
        firstTerm,
      }),
    )
    .sort((left, right) => right.score - left.score);
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

/** The tag by which an agent says it answers from the tenant's own knowledge (documents). */
export const KNOWLEDGE_TAG = 'knowledge';

/**
 * The skill that takes a request no agent matches: the first skill tagged `knowledge`. A
 * question nothing else claims ("How long is the probation period?") is most likely about the
 * tenant's own documents.
 */
function knowledgeSkill(agents: readonly AgentSummary[]): AgentScore | undefined {
  // A card without the tag may still say it: a skill tagged "knowledge base" or "documents".
  for (const tags of [[KNOWLEDGE_TAG], ['knowledge base', 'documents']]) {
    for (const agent of agents) {
      const skill = agent.skills.find((entry) => entry.tags.some((tag) => tags.includes(tag)));
      if (skill !== undefined) return { agent: agent.name, skill: skill.id, score: 0, matches: [] };
    }
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
    seen.add(
      term.source === 'tag' || term.source === 'name' || term.source === 'phrase'
        ? term.matched
        : term.word,
    );
    bySource.set(term.source, seen);
  }
  const labels: Record<MatchSource, string> = {
    tag: 'tags',
    name: 'name',
    example: 'examples',
    description: 'description',
    phrase: 'description phrase',
  };
  const order: MatchSource[] = ['tag', 'name', 'phrase', 'example', 'description'];
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

/** What the tenant's documents add to a part that asks about them ("our policy", "can I …"): more than one tag. */
const DOCUMENT_BONUS = 4;

/** What the word a part opens with adds when it is a tag or name: the verb says what to do. */
const LEADING_VERB_BONUS = 0.5;

/** A part of the request's clause, ranked. */
interface RankedPart {
  /** Offsets into the clause. */
  start: number;
  end: number;
  /** Agents by evidence, best first; evidence is tag and name matches plus the document bonus. */
  ranked: RankedAgent[];
}

interface RankedAgent {
  score: AgentScore;
  /** Tag and name matches (and the document bonus): what decides. */
  evidence: number;
  /** Everything, prose at half weight: what breaks ties. */
  total: number;
  /** The knowledge skill, ranked up because the part asks about the tenant's own documents. */
  byDocuments: boolean;
}

interface PlanningContext {
  agents: readonly AgentSummary[];
  profiles: readonly AgentProfile[];
  discount: (term: string) => number;
  knowledge: AgentScore | undefined;
  availability: ReadonlyMap<string, AgentAvailability>;
  /** Agents the request prefers (`steering.prefer`, skills by their agent): first on ties. */
  preferred: ReadonlySet<string>;
}

/**
 * The skill of the chosen agent that fits the kind of request: a URL goes to the skill tagged
 * "url"; a question goes to a skill that does not act for the user (no "approval" tag) when the
 * agent has one that matches as well.
 */
function preferredSkill(
  text: string,
  score: AgentScore,
  agents: readonly AgentSummary[],
): string | undefined {
  const agent = agents.find((entry) => entry.name === score.agent);
  if (agent === undefined) return score.skill;
  if (/\bhttps?:\/\//i.test(text)) {
    const reader = agent.skills.find((skill) => skill.tags.includes('url'));
    if (reader) return reader.id;
  }
  // The verb the part opens with names the skill ("check my drafts" searches them).
  const [first] = analyze(text);
  const byVerb = agent.skills.filter((skill) =>
    skill.tags.some((tag) => tokenize(tag).length === 1 && tokenize(tag)[0] === first?.term),
  );
  if (byVerb.length === 1 && byVerb[0] !== undefined && !refersBack(text) && !isQuestion(text))
    return byVerb[0].id;
  const current = agent.skills.find((skill) => skill.id === score.skill);
  if (isQuestion(text) && current?.tags.includes('approval')) {
    const terms = new Set(score.matches.map((match) => match.term));
    const readers = agent.skills.filter((skill) => !skill.tags.includes('approval'));
    const reader =
      readers.find((skill) =>
        skill.tags.some((tag) => tokenize(tag).some((term) => terms.has(term))),
      ) ?? readers[0];
    if (reader) return reader.id;
  }
  return score.skill;
}

function rankText(text: string, context: PlanningContext): RankedAgent[] {
  const scores = scoreAll({ text, profiles: context.profiles, discount: context.discount });
  const own = asksOwnDocuments(text);
  const [firstWord] = analyze(text);
  const ranked = scores.map((score): RankedAgent => {
    let evidence = 0;
    let prose = 0;
    // An agent without skills states what it does in its description alone.
    const skillless =
      context.agents.find((agent) => agent.name === score.agent)?.skills.length === 0;
    for (const match of score.matches) {
      if (isStated(match) || (skillless && match.source === 'description'))
        evidence += match.weight;
      else prose += match.weight;
      // The verb a part opens with says most about what to do ("Google the opening hours").
      if (match.term === firstWord?.term && (match.source === 'tag' || match.source === 'name'))
        evidence += LEADING_VERB_BONUS;
    }
    // An agent's own name ("mail", "web", "code") is its plainest statement of what it does.
    const ownName = new Set(tokenize(score.agent));
    if (score.matches.some((match) => ownName.has(match.term))) evidence += 1;
    const byDocuments =
      own && context.knowledge !== undefined && score.agent === context.knowledge.agent;
    if (byDocuments) evidence += DOCUMENT_BONUS;
    const skill = byDocuments
      ? context.knowledge?.skill
      : preferredSkill(text, score, context.agents);
    return {
      score: { ...score, skill, score: evidence + prose / 2 },
      evidence,
      total: evidence + prose / 2,
      byDocuments,
    };
  });
  const preferred = (entry: RankedAgent): number =>
    context.preferred.has(entry.score.agent) ? 1 : 0;
  return ranked.sort(
    (left, right) =>
      right.evidence - left.evidence ||
      right.total - left.total ||
      preferred(right) - preferred(left),
  );
}

function isClear(agent: RankedAgent | undefined): agent is RankedAgent {
  return agent !== undefined && agent.evidence >= MATCH_THRESHOLD;
}

/** A skill whose card says it works on what earlier steps produced (a mail to send, data to chart). */
function usesEarlierResults(agents: readonly AgentSummary[], score: AgentScore): boolean {
  const agent = agents.find((entry) => entry.name === score.agent);
  const skill = agent?.skills.find((entry) => entry.id === score.skill);
  const text = `${skill?.description ?? ''} ${agent?.description ?? ''}`;
  return /\bearlier (?:plan )?steps?\b|\bprevious step\b/i.test(text);
}

/** Why an agent cannot do the work now, or undefined when it can. */
function unavailability(
  availability: ReadonlyMap<string, AgentAvailability>,
  score: AgentScore,
): string | undefined {
  const state = availability.get(score.agent);
  if (state === undefined || state.state === 'ready') {
    if (score.skill !== undefined && state?.unavailableSkills?.includes(score.skill))
      return `its skill ${score.skill} is unavailable${state.reason ? `: ${state.reason}` : ''}`;
    return undefined;
  }
  if (
    score.skill !== undefined &&
    state.unavailableSkills !== undefined &&
    !state.unavailableSkills.includes(score.skill) &&
    state.state === 'degraded'
  )
    return undefined;
  return `${state.state}${state.reason ? `: ${state.reason}` : ''}`;
}

/** One step of the plan being drawn. */
interface DraftStep {
  text: string;
  match: AgentScore;
  weak: boolean;
  /** Indices of the draft steps it waits for. */
  after: number[];
  /** Why: "tags …", "the documents", "passed over …". */
  notes: string[];
  marker: string | undefined;
  /** Where its text starts in its clause, when it came from the clause's parts. */
  start?: number;
}

/**
 * Picks the agent for a part: the best clear one that can work now; an agent that is
 * unconfigured or degraded (or whose skill is unavailable) is passed over for another clear one,
 * and planned anyway when it is the only one that fits.
 */
function chooseAgent(
  ranked: readonly RankedAgent[],
  context: PlanningContext,
): { chosen: RankedAgent; notes: string[] } | undefined {
  const clear = ranked.filter(isClear);
  const [best] = clear;
  if (best === undefined) return undefined;
  const notes: string[] = [];
  const why = unavailability(context.availability, best.score);
  if (why === undefined) {
    for (const other of clear) {
      if (other === best || other.evidence < best.evidence * RELATIVE_CUT) continue;
      const reason = unavailability(context.availability, other.score);
      if (reason !== undefined) notes.push(`${other.score.agent} was passed over (${reason})`);
    }
    return { chosen: best, notes };
  }
  // Another agent that fits about as well (half the evidence) and can work now.
  const alternative = clear.find(
    (entry) =>
      entry !== best &&
      entry.evidence >= best.evidence * RELATIVE_CUT &&
      unavailability(context.availability, entry.score) === undefined,
  );
  if (alternative) {
    notes.push(`${best.score.agent} was passed over (${why}) for ${alternative.score.agent}`);
    return { chosen: alternative, notes };
  }
  notes.push(
    `${best.score.agent} is planned although it is ${why}, because no other agent can do this`,
  );
  return { chosen: best, notes };
}

function mergeSegments(clause: string, segments: readonly ClauseSegment[]): ClauseSegment[] {
  // A part that does not start new work ("median and mode", "MySQL replication", a lone program)
  // continues the one before it; a leading one joins the next.
  const merged: ClauseSegment[] = [];
  let pendingStart: number | undefined;
  for (const segment of segments) {
    const text = clause.slice(segment.start, segment.end);
    const previous = merged.at(-1);
    if (previous && !startsNewPart(text)) previous.end = segment.end;
    else if (!previous && !startsNewPart(text) && segments.length > 1)
      pendingStart ??= segment.start;
    else {
      merged.push({ start: pendingStart ?? segment.start, end: segment.end });
      pendingStart = undefined;
    }
  }
  if (pendingStart !== undefined) merged.push({ start: pendingStart, end: clause.length });
  return merged;
}

/**
 * A step for each required agent or skill (`steering.require`) no step uses: the whole request,
 * for the named skill (else the agent's best match), waiting for nothing.
 */
function requiredSteps({
  request,
  steps,
  steering,
  context,
}: {
  request: string;
  steps: readonly DraftStep[];
  steering: PlanRequest['steering'];
  context: PlanningContext;
}): DraftStep[] {
  const added: DraftStep[] = [];
  for (const name of steering?.require ?? []) {
    const targets = resolveSteeringName(name, context.agents);
    const [target] = targets;
    if (target === undefined) continue;
    const used = [...steps, ...added].some((step) =>
      targets.some((entry) => stepMatchesTarget(step.match, entry)),
    );
    if (used) continue;
    const ranked = rankText(request, context).find((entry) => entry.score.agent === target.agent);
    const skill =
      target.skill ??
      ranked?.score.skill ??
      context.agents.find((agent) => agent.name === target.agent)?.skills[0]?.id;
    added.push({
      text: request,
      match: {
        agent: target.agent,
        skill,
        score: ranked?.score.score ?? 0,
        matches: ranked?.score.matches ?? [],
      },
      weak: true,
      after: [],
      notes: [`the request requires "${name}"`],
      marker: undefined,
    });
  }
  return added;
}

/** Options for {@link planHeuristically}. */
export interface HeuristicPlanOptions {
  request: string;
  agents: readonly AgentSummary[];
  /**
   * The files attached to the request (`planRequest.files`): a code step works on them (its
   * `files`) — all of them when the plan has one code step, those its task names otherwise.
   */
  files?: readonly { name: string }[] | undefined;
  /**
   * The agents or skills the request prefers or requires (`planRequest.steering`): a preferred
   * agent is ranked first among agents that match a part equally well; a required one that no
   * part went to gets a step of its own with the whole request (its skill: the one named, else
   * its best match), run beside the others.
   */
  steering?: PlanRequest['steering'];
}

const CODE_PLACEHOLDER = /⟦code-block-\d+⟧/g;

/**
 * The files a code step works on: those its text names, then the attached files (every one with
 * `all`, else only those the text names), each once, at most {@link MAX_NODE_FILES}.
 */
function codeStepFiles({
  text,
  attached,
  all,
}: {
  text: string;
  attached: readonly { name: string }[];
  all: boolean;
}): string[] {
  const named = namedFiles(text);
  const lower = text.toLowerCase();
  const extra = attached
    .map((file) => file.name)
    .filter((name) => all || lower.includes(name.toLowerCase()));
  return [...new Set([...named, ...extra])].slice(0, MAX_NODE_FILES);
}

/**
 * The planner that needs no LLM (offline mode, and the fallback when the LLM's plan is unusable).
 * It reads the request as a person would draw its plan:
 *
 * - it splits the request into clauses at ordering words ("then", "after that", "finally",
 *   "based on", …; see `splitIntoClauses`); a clause waits for the one before it;
 * - inside a clause it splits at "and", "also", commas and sentence ends only where new work
 *   starts (a question, or an instruction opening with a verb): lists, numbers and "between A and
 *   B" stay whole, and a quoted program, URL or address stays with the words around it;
 * - each part goes to the agent whose card's tags and names it matches best; a question about
 *   the tenant's own rules or documents ("our policy", "can I …", "who has to approve …") goes to
 *   the skill tagged `knowledge`, and so does a question nothing else claims;
 * - neighbouring parts for the same agent are one step (a second question keeps what the first
 *   named; "and tell me what it prints" stays with "run this code"); a part for another agent
 *   that points back ("email it to …", "forward them") waits for the step before; other parts run
 *   in parallel;
 * - a quoted program goes to the step that runs code;
 * - an agent that is unconfigured or degraded, or whose skill is unavailable, is passed over
 *   when another agent fits, and planned anyway when none does; the rationale says so.
 *
 * The confidence (0.2–0.8) grows with the match strength. Pure and deterministic.
 *
 * @example
 * planHeuristically({ request: 'find X in our documents, then email a summary to bob@example.com', agents });
 * // rag-agent-1 → mail-agent-1
 */
export function planHeuristically({
  request,
  agents,
  files: attached = [],
  steering,
}: HeuristicPlanOptions): Plan {
  if (agents.length === 0) {
    return {
      nodes: [],
      rationale: 'No agents are available, so there is nothing to plan.',
      confidence: 0,
    };
  }
  const context = planningContext(agents, steering);
  const masked = maskCodeBlocks(request);
  const steps = draftClauseSteps(masked.text, context);
  const codeSteps = moveCodeToCodeStep(steps, agents);

  steps.push(...requiredSteps({ request: masked.text, steps, steering, context }));

  if (steps.length === 0) {
    return {
      nodes: [],
      rationale: `No agent fits the request: none of its words appear in the names, tags, examples or descriptions of ${agents.map((agent) => agent.name).join(', ')}.`,
      confidence: 0,
    };
  }
  return planFromSteps({ steps, codeSteps, request, masked, attached });
}

/** What ranking the request's parts needs to know about the agents and the steering. */
function planningContext(
  agents: readonly AgentSummary[],
  steering: HeuristicPlanOptions['steering'],
): PlanningContext {
  const profiles = agents.map(profileAgent);
  return {
    agents,
    profiles,
    discount: documentFrequencyDiscount(profiles),
    knowledge: knowledgeSkill(agents),
    availability: new Map(
      agents.flatMap((agent) =>
        agent.availability ? [[agent.name, agent.availability] as const] : [],
      ),
    ),
    preferred: new Set(
      (steering?.prefer ?? []).flatMap((name) =>
        resolveSteeringName(name, agents).map((target) => target.agent),
      ),
    ),
  };
}

/**
 * The draft steps of the request's clauses, in order: each clause's steps wait for the last
 * steps of the clause before it.
 */
function draftClauseSteps(text: string, context: PlanningContext): DraftStep[] {
  const steps: DraftStep[] = [];
  let previousClause: number[] = [];

  for (const clause of splitIntoClauses(text)) {
    const groups = clearGroups(clause.text, context);
    const clauseSteps: DraftStep[] = [];
    const firstOfClause = steps.length;
    if (groups.length === 0) {
      draftUnclaimedClause({ clause, context, steps, clauseSteps, previousClause });
    } else {
      for (const group of groups) {
        draftGroupStep({ clause, group, context, clauseSteps, firstOfClause, previousClause });
      }
    }
    if (clauseSteps.length === 0) continue;
    steps.push(...clauseSteps);
    // The next clause waits for this clause's last steps: those no other step of it waits for.
    const indices = clauseSteps.map((_, index) => firstOfClause + index);
    const waitedFor = new Set(clauseSteps.flatMap((step) => step.after));
    previousClause = indices.filter((index) => !waitedFor.has(index));
  }
  return steps;
}

/** A clause's parts that some agent clearly matches; the unclear parts join a neighbour. */
function clearGroups(clauseText: string, context: PlanningContext): RankedPart[] {
  const parts: RankedPart[] = mergeSegments(clauseText, splitIntoSegments(clauseText)).map(
    (segment) => ({
      ...segment,
      ranked: rankText(clauseText.slice(segment.start, segment.end), context),
    }),
  );
  // Parts nobody clearly matches join a neighbour, so that no words are lost.
  const groups: RankedPart[] = [];
  let pending: number | undefined;
  for (const part of parts) {
    const previous = groups.at(-1);
    if (isClear(part.ranked[0])) {
      groups.push({ ...part, start: pending ?? part.start });
      pending = undefined;
    } else if (previous) previous.end = part.end;
    else pending ??= part.start;
  }
  return groups;
}

/** Where one clause's steps are being drawn. */
interface ClauseDraft {
  clause: RequestClause;
  context: PlanningContext;
  /** The clause's steps so far. */
  clauseSteps: DraftStep[];
  /** The steps of the clause before, which this clause waits for. */
  previousClause: readonly number[];
}

/**
 * A clause that names no agent: a clause that only refers back ("then explain it") joins the
 * step before; a question goes to the documents; anything else to its closest agent.
 */
function draftUnclaimedClause({
  clause,
  context,
  steps,
  clauseSteps,
  previousClause,
}: ClauseDraft & { steps: DraftStep[] }): void {
  const whole = clause.text;
  // Nothing here names an agent: a clause that only refers back ("then explain it") belongs
  // to the step before; a question goes to the documents; anything else to its closest agent.
  const ranked = rankText(whole, context);
  const closest = ranked.find((entry) =>
    entry.score.matches.some((match) => match.source !== 'example'),
  );
  const last = steps.at(-1);
  if (
    last !== undefined &&
    (refersBack(whole) || !isQuestion(whole)) &&
    !(closest && closest.total > 0)
  ) {
    last.text = `${last.text}, then ${whole}`;
    return;
  }
  const pick = !isQuestion(whole)
    ? closest && closest.total > 0
      ? { match: closest.score, weak: true }
      : undefined
    : context.knowledge
      ? { match: context.knowledge, weak: true }
      : undefined;
  if (pick === undefined) return;
  clauseSteps.push({
    text: whole,
    match: pick.match,
    weak: pick.weak,
    after: [...previousClause],
    notes: [
      pick.match === context.knowledge
        ? `nothing else claims it, so it goes to the skill tagged "${KNOWLEDGE_TAG}" (or "knowledge base", "documents"): the tenant's documents are the likeliest source`
        : '',
    ],
    marker: clause.marker,
  });
}

/**
 * One clearly matched part of a clause: it joins the step before (a part pointing back, or the
 * same agent again), becomes a documents step and the step that uses them, or is a step of its
 * own.
 */
function draftGroupStep({
  clause,
  group,
  context,
  clauseSteps,
  firstOfClause,
  previousClause,
}: ClauseDraft & { group: RankedPart; firstOfClause: number }): void {
  const text = clause.text.slice(group.start, group.end);
  const ranked = rankText(text, context);
  const choice = chooseAgent(ranked, context);
  if (choice === undefined) return;
  const { chosen, notes } = choice;
  const lastInClause = clauseSteps.at(-1);
  if (
    lastInClause &&
    joinsStepBefore({ clause, group, text, chosen, notes, lastInClause, context })
  )
    return;
  // A part that asks for the tenant's documents and hands them to an agent that works on
  // earlier results ("email the SLA summary to …"): the documents first.
  const documents = ranked.find((entry) => entry.byDocuments && isClear(entry));
  const consumer =
    documents === chosen
      ? ranked.find(
          (entry) =>
            entry !== documents &&
            entry.evidence >= WEIGHTS.tag &&
            usesEarlierResults(context.agents, entry.score),
        )
      : usesEarlierResults(context.agents, chosen.score)
        ? chosen
        : undefined;
  if (documents && consumer && consumer !== documents) {
    clauseSteps.push({
      text,
      match: documents.score,
      weak: false,
      after: [...previousClause],
      notes: ["it asks about the tenant's own documents"],
      marker: clause.marker,
    });
    clauseSteps.push({
      text,
      match: consumer.score,
      weak: false,
      after: [firstOfClause + clauseSteps.length - 1],
      notes,
      marker: 'the document it names',
    });
    return;
  }
  const after =
    lastInClause && refersBack(text)
      ? [firstOfClause + clauseSteps.length - 1]
      : [...previousClause];
  clauseSteps.push({
    text,
    match: chosen.score,
    weak: false,
    after,
    start: group.start,
    notes: [
      ...(chosen.byDocuments ? ["it asks about the tenant's own documents or rules"] : []),
      ...notes,
    ],
    marker: lastInClause && refersBack(text) ? 'a word pointing back' : clause.marker,
  });
}

/**
 * Joins a part to the clause's step before it when the part only points back with its verb
 * ("… and summarise it") or goes to the same agent again (so the second part keeps what the
 * first named). Whether it joined.
 */
function joinsStepBefore({
  clause,
  group,
  text,
  chosen,
  notes,
  lastInClause,
  context,
}: {
  clause: RequestClause;
  group: RankedPart;
  text: string;
  chosen: RankedAgent;
  notes: readonly string[];
  lastInClause: DraftStep;
  context: PlanningContext;
}): boolean {
  // "… and summarise it": a part that points back and says no more than its verb is part of
  // the step before it.
  const firstTerm = analyze(text)[0]?.term;
  if (refersBack(text) && chosen.score.matches.every((match) => match.term === firstTerm)) {
    lastInClause.text = clause.text.slice(lastInClause.start ?? group.start, group.end);
    const rescored = chooseAgent(rankText(lastInClause.text, context), context);
    if (rescored && rescored.chosen.score.agent === lastInClause.match.agent)
      lastInClause.match = rescored.chosen.score;
    return true;
  }
  // The same agent again: one step, so the second part keeps what the first one named.
  if (lastInClause.match.agent === chosen.score.agent) {
    const combined = clause.text.slice(lastInClause.start ?? group.start, group.end);
    lastInClause.text = combined;
    lastInClause.notes.push(...notes);
    const rescored = chooseAgent(rankText(combined, context), context);
    if (rescored && rescored.chosen.score.agent === lastInClause.match.agent)
      lastInClause.match = rescored.chosen.score;
    return true;
  }
  return false;
}

/**
 * Moves a quoted program to the step that runs code, wherever the request put it, when exactly
 * one step runs code. The steps that run code.
 */
function moveCodeToCodeStep(
  steps: readonly DraftStep[],
  agents: readonly AgentSummary[],
): DraftStep[] {
  // A quoted program belongs to the step that runs code, wherever the request put it.
  const codeSteps = steps.filter((step) => {
    const agent = agents.find((entry) => entry.name === step.match.agent);
    const skill = agent?.skills.find((entry) => entry.id === step.match.skill);
    return (skill?.tags ?? []).some((tag) => tag === 'code' || tag === 'python');
  });
  if (codeSteps.length === 1) {
    const [code] = codeSteps;
    for (const step of steps) {
      if (step === code || code === undefined) continue;
      const blocks = step.text.match(CODE_PLACEHOLDER) ?? [];
      if (blocks.length === 0) continue;
      step.text = step.text.replace(CODE_PLACEHOLDER, '').replace(/[\s:]+$/, '');
      code.text = `${code.text.replace(/[\s.:]+$/, '')}: ${blocks.join('\n')}`;
    }
  }
  return codeSteps;
}

/** The plan of the draft steps: its nodes (at most `MAX_NODES`), rationale and confidence. */
function planFromSteps({
  steps,
  codeSteps,
  request,
  masked,
  attached,
}: {
  steps: readonly DraftStep[];
  codeSteps: readonly DraftStep[];
  request: string;
  masked: MaskedRequest;
  attached: readonly { name: string }[];
}): Plan {
  const kept = steps.slice(0, MAX_NODES);
  const ids = nodeIds(kept);
  const nodes: PlanNode[] = kept.map((step, index) => {
    const dependsOn = step.after.flatMap((at) => (ids[at] === undefined ? [] : [ids[at]]));
    const task = masked.restore(phraseTask(step.text, dependsOn));
    // A code step gets the files the request names (its own text's, when several steps run code).
    const files = codeSteps.includes(step)
      ? codeStepFiles({
          text: codeSteps.length === 1 ? request : task,
          attached,
          all: codeSteps.length === 1,
        })
      : [];
    return {
      id: ids[index] ?? `step-${index + 1}`,
      agent: step.match.agent,
      ...(step.match.skill ? { skill: step.match.skill } : {}),
      task,
      dependsOn,
      ...(files.length > 0 ? { files } : {}),
    };
  });
  const limit = steps.length > MAX_NODES ? ` The plan stops at ${MAX_NODES} steps.` : '';
  return {
    nodes,
    rationale: `Heuristic plan from the request's parts and the agents' skills. ${describeSteps(kept, nodes, ids).join(' ')}${parallelGroups(nodes)}${limit}`,
    confidence: confidenceOf(
      kept.map((step) => (step.weak ? { ...step.match, score: 0 } : step.match)),
    ),
  };
}

/** The node ids of the steps: the agent's prefix and a count per prefix ("rag-1", "rag-2"). */
function nodeIds(steps: readonly DraftStep[]): string[] {
  const ids: string[] = [];
  const counters = new Map<string, number>();
  for (const step of steps) {
    const prefix = nodeIdPrefix(step.match.agent);
    const count = (counters.get(prefix) ?? 0) + 1;
    counters.set(prefix, count);
    ids.push(`${prefix}-${count}`);
  }
  return ids;
}

/** One sentence per step for the rationale: what matched, what it waits for, and why. */
function describeSteps(
  kept: readonly DraftStep[],
  nodes: readonly PlanNode[],
  ids: readonly string[],
): string[] {
  return kept.map((step, index) => {
    const node = nodes[index];
    const order =
      node && node.dependsOn.length > 0
        ? ` after ${node.dependsOn.join(', ')} (the request says "${step.marker ?? 'then'}")`
        : '';
    const matched =
      step.match.matches.length > 0
        ? describeMatch(step.match)
        : `${step.match.agent}${step.match.skill ? `/${step.match.skill}` : ''}`;
    const strength = step.weak ? ' (a weak match: nothing fits better)' : '';
    const notes = step.notes.filter((note) => note !== '');
    const why = notes.length > 0 ? `; ${notes.join('; ')}` : '';
    return `${ids[index] ?? ''} = ${matched}${strength}${order} for ${quote(step.text.trim())}${why}.`;
  });
}

/** The rationale's note on the nodes that wait for the same nodes and so run in parallel. */
function parallelGroups(nodes: readonly PlanNode[]): string {
  const byWait = new Map<string, string[]>();
  nodes.forEach((node) => {
    const key = node.dependsOn.join(',');
    byWait.set(key, [...(byWait.get(key) ?? []), node.id]);
  });
  return [...byWait.values()]
    .filter((group) => group.length > 1)
    .map((group) => ` ${group.join(', ')} run in parallel.`)
    .join('');
}
