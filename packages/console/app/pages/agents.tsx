import { api, type AgentView, type ListOf, type SkillView } from '../api';
import { ErrorNote } from '../components/error-note';
import { usePolling } from '../hooks';

const AVAILABILITY_WORDS: Record<AgentView['availability']['state'], string> = {
  ready: 'Ready',
  degraded: 'Degraded',
  unconfigured: 'Not configured',
};

/** The tags that say something a badge shows already, or nothing to a person. */
const SHOWN_AS_BADGES = new Set([
  'mcp',
  'read-only',
  'destructive',
  'approval:required',
  'approval:none',
]);

function SkillRow({ skill, unavailable }: { skill: SkillView; unavailable: boolean }) {
  const tags = skill.tags.filter(
    (tag) => !SHOWN_AS_BADGES.has(tag) && !tag.startsWith('mcp-server:'),
  );
  return (
    <tr data-skill-id={skill.id}>
      <td data-label="Skill">
        <code>{skill.id}</code>
        {skill.name !== skill.id ? <small class="skill-name"> {skill.name}</small> : null}
      </td>
      <td data-label="What it does">{skill.description}</td>
      <td data-label="Notes" class="skill-badges">
        {skill.mcp === undefined ? null : (
          <span class="badge badge-tool" title={`MCP server ${skill.mcp.server}`}>
            tool of {skill.mcp.server}
          </span>
        )}
        {skill.approval === 'required' ? (
          <span class="badge badge-approval">asks for approval</span>
        ) : null}
        {skill.tags.includes('read-only') ? (
          <span class="badge badge-read-only">read-only</span>
        ) : null}
        {skill.tags.includes('destructive') ? (
          <span class="badge badge-destructive">destructive</span>
        ) : null}
        {unavailable ? <span class="badge badge-failed">unavailable now</span> : null}
        {tags.length === 0 ? null : <small class="skill-tags"> {tags.join(', ')}</small>}
      </td>
    </tr>
  );
}

function AgentCard({ agent }: { agent: AgentView }) {
  const { availability } = agent;
  const unavailable = new Set(availability.unavailableSkills ?? []);
  const titleId = `agent-${agent.name.replace(/[^\w-]/g, '-')}`;
  return (
    <article class="agent" aria-labelledby={titleId} data-agent={agent.name}>
      <header>
        <h2 id={titleId}>{agent.name}</h2>
        <span class={`badge badge-availability-${availability.state}`}>
          {AVAILABILITY_WORDS[availability.state]}
        </span>
        <p>{agent.description}</p>
        {availability.reason === undefined ? null : (
          <p class="availability-reason">
            <strong>Why:</strong> {availability.reason}
          </p>
        )}
      </header>
      {agent.skills.length === 0 ? (
        <p>No skills listed: the planner gives it whole tasks.</p>
      ) : (
        <div class="table-wrap">
          <table class="skills-table">
            <caption class="visually-hidden">Skills of {agent.name}</caption>
            <thead>
              <tr>
                <th scope="col">Skill</th>
                <th scope="col">What it does</th>
                <th scope="col">Notes</th>
              </tr>
            </thead>
            <tbody>
              {agent.skills.map((skill) => (
                <SkillRow key={skill.id} skill={skill} unavailable={unavailable.has(skill.id)} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </article>
  );
}

/**
 * The agents the orchestrator can plan with for this tenant: their availability, their skills,
 * and for MCP tools which ones ask for approval and which only read or destroy. Tools the tenant's
 * tool permissions refuse are not listed.
 */
export function AgentsPage() {
  const agents = usePolling((signal) => api<ListOf<AgentView>>('/agents', { signal }), {
    intervalMs: 30_000,
    key: 'agents',
  });
  const list = agents.data?.data;
  return (
    <section aria-labelledby="agents-title">
      <hgroup>
        <h1 id="agents-title">Agents</h1>
        <p>
          The agents the fleet plans with, as this tenant may use them: tools its permissions refuse
          are left out.
        </p>
      </hgroup>
      <ErrorNote message={agents.error} />
      {list === undefined ? (
        agents.error === undefined ? (
          <p aria-busy="true">Loading…</p>
        ) : null
      ) : list.length === 0 ? (
        <p>No agents are available now.</p>
      ) : (
        list.map((agent) => <AgentCard key={agent.name} agent={agent} />)
      )}
    </section>
  );
}
