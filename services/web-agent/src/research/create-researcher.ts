import { ServiceUnavailableError, toFleetError } from '@fleet/errors';
import { setSpanOutput, SpanKind, withSpan, type WithSpanOptions } from '@fleet/telemetry';
import type {
  AnswerContext,
  SourceMaterial,
  WebAnswer,
  WebAnswerer,
  WebSource,
} from '../answering';
import { NO_SEARCH_PROVIDER_HINT } from '../config';
import { inProcessPageReader, type PageFetcher, type PageReader } from '../fetching';
import type { SearchMode, SearchProvider, SearchResult } from '../search';
import { deriveQuery, urlsIn, type ResearchMode } from './derive-query';

/** What happened to one page the agent tried to read. */
export interface PageReport {
  url: string;
  status: 'read' | 'failed';
  /** Where the text came from after redirects. */
  finalUrl?: string;
  title?: string;
  /** Characters of readable text. */
  chars?: number;
  /** Why it could not be read: the error's code and message. */
  error?: { code: string; message: string };
}

/** A search result as results report it (without the provider's raw content). */
export type ReportedResult = Omit<SearchResult, 'rawContent'>;

/** The outcome of one research task. */
export interface Research {
  mode: ResearchMode;
  /** What was searched; undefined in `read` mode. */
  query: string | undefined;
  provider: string | undefined;
  results: ReportedResult[];
  pages: PageReport[];
  answer: WebAnswer;
}

/** What a {@link Researcher} is asked. */
export interface ResearchRequest {
  question: string;
  /** Whose task it is: pages are read fairly between tenants. @default 'anonymous' */
  tenant?: string | undefined;
  mode: ResearchMode;
  context?: readonly AnswerContext[];
  signal?: AbortSignal | undefined;
}

/**
 * A stage of the research, as it begins (the agent says it while it works): a search, the pages
 * it reads (the first one's address, and how many), the answer written from what was read.
 */
export type ResearchStage =
  | { stage: 'searching'; query: string }
  | { stage: 'reading'; url: string; count: number }
  | { stage: 'summarising'; sources: number };

/** Researches a question: search, read pages, answer. */
export interface Researcher {
  research(options: ResearchRequest): Promise<Research>;
  /**
   * The same research, its answer streamed: yields each {@link ResearchStage} as it begins and
   * the answer's text in pieces while the model writes it (see `WebAnswerer.stream`), then
   * returns the research.
   */
  stream(options: ResearchRequest): AsyncGenerator<string | ResearchStage, Research, undefined>;
}

/** Options for {@link createResearcher}. */
export interface CreateResearcherOptions {
  /** Undefined when none is configured: search tasks fail with how to configure one. */
  provider: SearchProvider | undefined;
  fetchPage: PageFetcher;
  /**
   * Extracts each fetched page's readable text. The service passes `createPageReader`'s (worker
   * threads, time and memory budgets, fair between tenants).
   * @default the calling thread (`inProcessPageReader`)
   */
  pageReader?: PageReader;
  answerer: WebAnswerer;
  /** Results per search in basic and news modes (deep: twice, up to 20). @default 5 */
  maxResults?: number;
  /** Pages read per search in basic and news modes (deep: twice, up to 10). @default 3 */
  fetchPages?: number;
  tracer?: WithSpanOptions['tracer'];
}

function snippetOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= 300 ? flat : `${flat.slice(0, 300).replace(/\s+\S*$/, '')}…`;
}

/** A page's readable text, title and excerpt as the page reader gives them. */
type ReadablePage = Awaited<ReturnType<PageReader['read']>>;

/** One page the agent tried to read: its report, and its readable text or why it failed. */
interface PageOutcome {
  url: string;
  report: PageReport;
  readable: ReadablePage | undefined;
  error: ReturnType<typeof toFleetError> | undefined;
}

/** The outcome of reading the page at `url`, from its settled fetch-and-read. */
function pageOutcome(
  url: string,
  outcome: PromiseSettledResult<{ page: { finalUrl: string }; readable: ReadablePage }>,
): PageOutcome {
  if (outcome.status === 'fulfilled') {
    const { page, readable } = outcome.value;
    const report: PageReport = {
      url,
      status: 'read',
      finalUrl: page.finalUrl,
      title: readable.title,
      chars: readable.text.length,
    };
    return { url, report, readable, error: undefined };
  }
  const error = toFleetError(outcome.reason);
  const report: PageReport = {
    url,
    status: 'failed',
    error: { code: error.code, message: error.message },
  };
  return { url, report, readable: undefined, error };
}

/** The answer's material from a page read in `read` mode. */
function readPageMaterial({ report, readable }: PageOutcome): SourceMaterial {
  return {
    source: {
      title: readable?.title ?? report.url,
      url: report.finalUrl ?? report.url,
      snippet: readable?.excerpt ?? snippetOf(readable?.text ?? ''),
      ...(readable?.publishedTime === undefined ? {} : { publishedDate: readable.publishedTime }),
      fetched: true,
    },
    text: readable?.text ?? '',
  };
}

/** The answer's materials from search results: a result's page text when it was read, else its own. */
function searchResultMaterials(
  results: readonly SearchResult[],
  pages: readonly PageOutcome[],
): SourceMaterial[] {
  const byUrl = new Map(pages.map((page) => [page.url, page]));
  return results.map((result) => {
    const readable = byUrl.get(result.url)?.readable;
    const text = readable?.text || result.rawContent || result.snippet;
    const source: WebSource = {
      title: result.title,
      url: result.url,
      snippet: result.snippet || snippetOf(text),
      ...(result.publishedDate === undefined ? {} : { publishedDate: result.publishedDate }),
      fetched: readable !== undefined,
    };
    return { source, text };
  });
}

/** Fetches a page (TOOL span `web.fetch`) and extracts its readable text. */
async function readPage(
  {
    fetchPage,
    pageReader,
    tracer,
  }: Pick<CreateResearcherOptions, 'fetchPage' | 'tracer'> & {
    pageReader: PageReader;
  },
  url: string,
  { tenant, signal }: { tenant: string; signal: AbortSignal | undefined },
) {
  return withSpan(
    {
      name: 'web.fetch',
      kind: SpanKind.TOOL,
      input: url,
      attributes: { 'tool.name': 'fetch_page' },
      tracer,
    },
    async (span) => {
      const page = await fetchPage(url, { signal });
      const readable = await pageReader.read({
        tenant,
        body: page.body,
        mediaType: page.mediaType,
        url: page.finalUrl,
        signal,
      });
      setSpanOutput(span, {
        finalUrl: page.finalUrl,
        status: page.status,
        title: readable.title,
        chars: readable.text.length,
      });
      return { page, readable };
    },
  );
}

/**
 * Searches the provider (TOOL span `web.search`): deep mode asks for twice the results, up to 20.
 *
 * @throws ServiceUnavailableError with {@link NO_SEARCH_PROVIDER_HINT} when no provider is configured.
 */
async function search(
  {
    provider,
    maxResults,
    tracer,
  }: Pick<CreateResearcherOptions, 'provider' | 'tracer'> & { maxResults: number },
  query: string,
  { mode, signal }: { mode: SearchMode; signal: AbortSignal | undefined },
) {
  if (provider === undefined) {
    throw new ServiceUnavailableError(NO_SEARCH_PROVIDER_HINT, { retryable: false });
  }
  const wanted = mode === 'deep' ? Math.min(20, maxResults * 2) : maxResults;
  return withSpan(
    {
      name: 'web.search',
      kind: SpanKind.TOOL,
      input: { query, mode, provider: provider.name, maxResults: wanted },
      attributes: { 'tool.name': 'web_search' },
      tracer,
    },
    async (span) => {
      const response = await provider.search({ query, mode, maxResults: wanted, signal });
      setSpanOutput(
        span,
        response.results.map(({ title, url }) => ({ title, url })),
      );
      return response;
    },
  );
}

/**
 * The web agent's research loop, each step in its own OpenInference span: the search (TOOL
 * `web.search`), the follow-up page fetches of the top results (TOOL `web.fetch`, in parallel,
 * through the guarded fetcher; a page that cannot be read keeps its snippet), then the cited
 * answer. `read` mode fetches the URLs of the question instead of searching, and fails when none
 * of them can be read.
 *
 * @throws ServiceUnavailableError with {@link NO_SEARCH_PROVIDER_HINT} when a search is needed and
 *   no provider is configured; the provider's errors; in `read` mode, the first page's error.
 * @example
 * const researcher = createResearcher({ provider, fetchPage, answerer });
 * const { answer } = await researcher.research({ question, mode: 'basic', signal });
 */
export function createResearcher({
  provider,
  fetchPage,
  pageReader = inProcessPageReader(),
  answerer,
  maxResults = 5,
  fetchPages = 3,
  tracer,
}: CreateResearcherOptions): Researcher {
  async function readAll(urls: readonly string[], tenant: string, signal: AbortSignal | undefined) {
    const settled = await Promise.allSettled(
      urls.map((url) => readPage({ fetchPage, pageReader, tracer }, url, { tenant, signal })),
    );
    return settled.map((outcome, index) => pageOutcome(urls[index] ?? '', outcome));
  }

  async function* stream({
    question,
    tenant = 'anonymous',
    mode,
    context = [],
    signal,
  }: ResearchRequest): AsyncGenerator<string | ResearchStage, Research, undefined> {
    if (mode === 'read') {
      const urls = urlsIn(question);
      if (urls[0] !== undefined) yield { stage: 'reading', url: urls[0], count: urls.length };
      const pages = await readAll(urls, tenant, signal);
      const read = pages.filter((page) => page.readable !== undefined);
      if (read.length === 0) {
        throw pages[0]?.error ?? new ServiceUnavailableError('The task names no URL to read.');
      }
      const materials = read.map(readPageMaterial);
      yield { stage: 'summarising', sources: materials.length };
      const answer = yield* answerer.stream({
        question,
        query: undefined,
        materials,
        context,
        signal,
      });
      return {
        mode,
        query: undefined,
        provider: undefined,
        results: [],
        pages: pages.map((page) => page.report),
        answer,
      };
    }
    const query = deriveQuery(question);
    yield { stage: 'searching', query };
    const response = await search({ provider, maxResults, tracer }, query, { mode, signal });
    const toRead = mode === 'deep' ? Math.min(10, fetchPages * 2) : fetchPages;
    const urls = response.results.slice(0, toRead).map((result) => result.url);
    if (urls[0] !== undefined) yield { stage: 'reading', url: urls[0], count: urls.length };
    const pages = await readAll(urls, tenant, signal);
    const materials = searchResultMaterials(response.results, pages);
    yield { stage: 'summarising', sources: materials.length };
    const answer = yield* answerer.stream({ question, query, materials, context, signal });
    return {
      mode,
      query,
      provider: response.provider,
      results: response.results.map(({ rawContent: _raw, ...result }) => result),
      pages: pages.map((page) => page.report),
      answer,
    };
  }

  return {
    async research(request) {
      const run = stream(request);
      let next = await run.next();
      while (next.done !== true) next = await run.next();
      return next.value;
    },
    stream,
  };
}
