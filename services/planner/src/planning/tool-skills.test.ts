import { describe, expect, it } from '@jest/globals';
import type { AgentSummary } from '@fleet/a2a';
import { FLEET_AGENTS } from '../test-support/fleet-agents';
import { planHeuristically } from './heuristic-planner';
import { impliedConcepts } from './request-cues';
import { namesTool, splitIdentifier, termPairs, toolSkillProfile } from './tool-skills';

/** A tools agent as the tools agent's card has it: one skill per MCP tool (descriptions as the npm servers give them). */
function toolSkill(
  id: string,
  description: string,
  approval: 'none' | 'required' = 'none',
): AgentSummary['skills'][number] {
  const [server = '', tool = ''] = id.split('/');
  return {
    id: `${server}/${tool}`,
    name: tool,
    description,
    tags: ['mcp', `mcp-server:${server}`, `approval:${approval}`],
    examples: [],
  };
}

const TOOLS_AGENT: AgentSummary = {
  name: 'tools-agent',
  description: "Calls the tools of the fleet's MCP servers for the tenant.",
  skills: [
    toolSkill(
      'filesystem/read_file',
      'Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead.',
    ),
    toolSkill(
      'filesystem/read_text_file',
      'Read the complete contents of a file from the file system as text. Only works within allowed directories.',
    ),
    toolSkill(
      'filesystem/read_media_file',
      'Read a file and return it as a base64-encoded content block with its MIME type.',
    ),
    toolSkill(
      'filesystem/list_directory',
      'Get a detailed listing of all files and directories in a specified path.',
    ),
    toolSkill(
      'filesystem/list_directory_with_sizes',
      'Get a detailed listing of all files and directories in a specified path, including sizes.',
    ),
    toolSkill(
      'filesystem/list_allowed_directories',
      'Returns the list of directories that this server is allowed to access.',
    ),
    toolSkill(
      'filesystem/write_file',
      'Create a new file or completely overwrite an existing file with new content.',
      'required',
    ),
    toolSkill(
      'memory/create_entities',
      'Create multiple new entities in the knowledge graph',
      'required',
    ),
    toolSkill('memory/read_graph', 'Read the entire knowledge graph'),
    toolSkill('memory/search_nodes', 'Search for nodes in the knowledge graph based on a query'),
    toolSkill('drive/listSharedDrives', 'Lists the shared drives the user can see.'),
  ],
};

const AGENTS = [...FLEET_AGENTS, TOOLS_AGENT];

function pick(request: string): string[] {
  return planHeuristically({ request, agents: AGENTS }).nodes.map(
    (node) => `${node.agent}:${node.skill ?? ''}`,
  );
}

describe('splitIdentifier', () => {
  it('splits snake, kebab and camel case', () => {
    expect(splitIdentifier('list_directory_with_sizes')).toBe('list directory with sizes');
    expect(splitIdentifier('get-sum')).toBe('get sum');
    expect(splitIdentifier('listSharedDrives')).toBe('list Shared Drives');
    expect(splitIdentifier('HTTPServerStatus')).toBe('HTTP Server Status');
  });
});

describe('toolSkillProfile', () => {
  it('reads the name, the server kind, description phrases and the approval tag', () => {
    const profile = toolSkillProfile(
      toolSkill('filesystem/list_directory', 'Get a listing of all files.'),
    );
    expect([...(profile?.nameTerms ?? [])]).toEqual(['list', 'directory']);
    // A filesystem server works on files and directories.
    expect(profile?.serverTerms).toEqual(new Set(['filesystem', 'fil', 'directory']));
    expect(profile?.phrases.has('list fil')).toBe(true);
    expect(profile?.approvalFree).toBe(true);
    expect(profile?.explicitNames).toEqual(['filesystem/list_directory', 'list_directory']);
  });

  it('is undefined for skills that are not MCP tools', () => {
    expect(toolSkillProfile({ id: 'answer', name: 'Answer', description: '', tags: [] })).toBe(
      undefined,
    );
    expect(
      toolSkillProfile({ id: 'no-slash', name: 'x', description: '', tags: ['mcp'] }),
    ).toBeUndefined();
  });

  it('names a bare tool outright only when its name is distinctive', () => {
    const query = toolSkillProfile(toolSkill('postgres/query', 'Run a read-only SQL query'));
    expect(query?.explicitNames).toEqual(['postgres/query']);
    expect(query && namesTool('query the database', query)).toBeUndefined();
    expect(query && namesTool('use postgres/query for it', query)).toBe('postgres/query');
  });
});

describe('termPairs', () => {
  it('pairs adjacent terms with the words as written', () => {
    expect(termPairs('what is in the knowledge graph')).toEqual(
      new Map([['knowledg chart', 'knowledge graph']]),
    );
  });
});

describe('impliedConcepts for files', () => {
  it('reads a text file or a media file from its extension, never from a URL', () => {
    expect(impliedConcepts('read notes/todo.md')).toEqual(['text', 'file']);
    expect(impliedConcepts('open photos/cat.png')).toEqual(['media', 'file']);
    expect(impliedConcepts('read https://example.com/post.html')).toEqual([]);
  });
});

describe('planHeuristically with MCP tool skills', () => {
  it('picks the tool a request describes', () => {
    expect(pick('list the files in my notes folder')).toEqual([
      'tools-agent:filesystem/list_directory',
    ]);
    // read_file fits as well, but says it is deprecated; read_media_file is for media.
    expect(pick('read the file notes/todo.md')).toEqual(['tools-agent:filesystem/read_text_file']);
    // A question reads: read_graph, not create_entities, although "entities" is in its name.
    expect(pick('what entities are in the knowledge graph')).toEqual([
      'tools-agent:memory/read_graph',
    ]);
    expect(pick('which directories am I allowed to access?')).toEqual([
      'tools-agent:filesystem/list_allowed_directories',
    ]);
  });

  it('picks a tool the request names, as <server>/<tool> or by a distinctive name', () => {
    expect(pick('run filesystem/list_directory on /data')).toEqual([
      'tools-agent:filesystem/list_directory',
    ]);
    expect(pick('use list_directory_with_sizes on /data')).toEqual([
      'tools-agent:filesystem/list_directory_with_sizes',
    ]);
    expect(pick('call listSharedDrives please')).toEqual(['tools-agent:drive/listSharedDrives']);
  });

  it('explains the match in the rationale', () => {
    const { rationale } = planHeuristically({
      request: 'what entities are in the knowledge graph',
      agents: AGENTS,
    });
    expect(rationale).toContain('tools-agent/memory/read_graph');
    expect(rationale).toContain('description phrase "knowledge graph"');
  });

  it("leaves the other agents' requests to them", () => {
    // "allowed" is a word of list_allowed_directories; one word of a tool's name proves nothing.
    expect(pick('Is remote work from Spain allowed?')[0]).toMatch(/^rag-agent:/);
    expect(pick('search the web for the latest Node.js release')[0]).toMatch(/^web-agent:/);
    expect(pick('plotting the charts')[0]).toMatch(/^code-agent:/);
    expect(pick('reply to the email from Alice')[0]).toMatch(/^mail-agent:/);
    expect(pick('summarise https://nodejs.org/en/blog/post.html')[0]).toBe('web-agent:fetch-page');
  });

  it('hands a file it read on to the next agent', () => {
    const result = planHeuristically({
      request: 'read the file notes/todo.md and email it to bob@example.com',
      agents: AGENTS,
    });
    expect(result.nodes.map((node) => [node.agent, node.skill, node.dependsOn])).toEqual([
      ['tools-agent', 'filesystem/read_text_file', []],
      ['mail-agent', 'mail-send', ['tools-agent-1']],
    ]);
  });
});
