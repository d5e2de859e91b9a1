import { describe, expect, it } from '@jest/globals';
import type { PlanNode, RunFileStore } from '@fleet/a2a';
import { ServiceUnavailableError } from '@fleet/errors';
import { createMemoryRunFileStore } from '@fleet/testing';
import { withAttachments } from './attachment-step-files';
import type { StepFiles } from './node-outcome';

const node = (files: string[]): PlanNode => ({
  id: 'total',
  agent: 'code-agent',
  task: 'Add it up',
  dependsOn: [],
  files,
});

async function attached() {
  const store = createMemoryRunFileStore();
  const files = await store.put({
    tenant: 'acme',
    files: [{ name: 'sales.csv', mediaType: 'text/csv', bytes: Buffer.from('a,b\n1,2\n') }],
    sessionId: 's-1',
    source: 'attachment',
    expiresAt: '2099-01-01T00:00:00.000Z',
  });
  return { store, files };
}

describe('withAttachments', () => {
  it('sends an attachment’s bytes and asks the documents only for the other names', async () => {
    const { store, files } = await attached();
    const asked: string[][] = [];
    const documents: StepFiles = ({ node: named }) => {
      asked.push(named.files ?? []);
      return Promise.resolve({
        status: 'ready',
        parts: [{ raw: Buffer.from('doc').toString('base64'), filename: 'policy.txt' }],
      });
    };
    const stepFiles = withAttachments({ store, attachments: () => files, documents });
    const result = await stepFiles({
      node: node(['sales.csv', 'policy.txt']),
      tenant: 'acme',
      signal: undefined,
    });
    expect(result).toEqual({
      status: 'ready',
      parts: [
        {
          raw: Buffer.from('a,b\n1,2\n').toString('base64'),
          filename: 'sales.csv',
          mediaType: 'text/csv',
        },
        { raw: Buffer.from('doc').toString('base64'), filename: 'policy.txt' },
      ],
    });
    expect(asked).toEqual([['policy.txt']]);
  });

  it('fails the step as its task’s when an attachment expired, as the fleet’s when the store is down', async () => {
    const { store, files } = await attached();
    await store.remove({ tenant: 'acme', id: files[0]?.id ?? '' });
    const gone = await withAttachments({ store, attachments: () => files })({
      node: node(['sales.csv']),
      tenant: 'acme',
      signal: undefined,
    });
    expect(gone).toMatchObject({ status: 'failed', failure: 'task' });
    const down: RunFileStore = {
      ...store,
      get: () => Promise.reject(new ServiceUnavailableError('unreachable')),
    };
    const failed = await withAttachments({ store: down, attachments: () => files })({
      node: node(['sales.csv']),
      tenant: 'acme',
      signal: undefined,
    });
    expect(failed).toMatchObject({ status: 'failed', failure: 'fleet' });
  });

  it('says a name is not attached when there is no documents agent to ask', async () => {
    const { store, files } = await attached();
    const result = await withAttachments({ store, attachments: () => files })({
      node: node(['other.csv']),
      tenant: 'acme',
      signal: undefined,
    });
    expect(result).toMatchObject({
      status: 'failed',
      failure: 'task',
      error: expect.stringContaining('other.csv') as unknown,
    });
  });
});
