import type { AgentSummary } from '@fleet/a2a';

/** The fleet's agents as the planner sees them, with cards like the real ones. For tests. */
export const FLEET_AGENTS: AgentSummary[] = [
  {
    name: 'web-agent',
    description: 'Searches the public web and reads pages, answering with cited sources.',
    skills: [
      {
        id: 'web-search',
        name: 'Web search',
        description: 'Searches the web through pluggable providers and answers with cited sources.',
        tags: ['web', 'search', 'internet', 'news', 'research', 'online'],
        examples: [
          'search the web for the latest Node.js release',
          'what is the news about the EU AI Act?',
        ],
      },
      {
        id: 'fetch-page',
        name: 'Read a web page',
        description: 'Fetches a page and summarises it.',
        tags: ['url', 'page', 'fetch', 'website'],
        examples: ['summarise https://example.com/post'],
      },
    ],
  },
  {
    name: 'rag-agent',
    description: 'Answers from the documents your organisation uploaded, with citations.',
    skills: [
      {
        id: 'document-search',
        name: 'Document search',
        description: "Hybrid retrieval over the tenant's internal documents; cited answers.",
        tags: ['documents', 'docs', 'internal', 'knowledge base', 'policy', 'files'],
        examples: [
          'what does our travel policy say about trains?',
          'find the onboarding checklist in our documents',
        ],
      },
    ],
  },
  {
    name: 'mail-agent',
    description: 'Reads, drafts and sends e-mail.',
    skills: [
      {
        id: 'mail-search',
        name: 'Search mail',
        description: 'Searches and reads the mailbox.',
        tags: ['email', 'mail', 'inbox', 'mailbox'],
        examples: ['find the last email from Alice'],
      },
      {
        id: 'mail-send',
        name: 'Send mail',
        description: 'Drafts, sends and replies to e-mail; sending needs approval.',
        tags: ['email', 'mail', 'send', 'reply', 'draft'],
        examples: ['email a summary to bob@example.com', 'reply to the latest email from Alice'],
      },
    ],
  },
  {
    name: 'code-agent',
    description: 'Writes and runs Python in a sandbox.',
    skills: [
      {
        id: 'python',
        name: 'Run Python',
        description: 'Writes and runs Python for calculations, data analysis and charts.',
        tags: ['python', 'code', 'chart', 'plot', 'calculation', 'data analysis'],
        examples: [
          'plot monthly revenue as a bar chart',
          'compute the compound interest on 1000 at 5% for 10 years',
        ],
      },
    ],
  },
];

/** The names of {@link FLEET_AGENTS}. */
export const FLEET_AGENT_NAMES = FLEET_AGENTS.map((agent) => agent.name);
