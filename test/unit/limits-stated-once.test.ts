/**
 * Limits are imported, not restated (issue 26): the API's schema describes the plans' longest lifetimes from the plan
 * table, and the MCP server states the inbox lifetime's default and minimum from the client's constants (which
 * test/unit/client-types.test.ts proves equal to the server's). Each test changes the source of the fact and sees the
 * text follow; a restated number would stay behind.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { BASE_PLANS, maxTtlByPlan, type Plan, type PlanName } from '../../lambdas/core/plans';

const DAY = 86_400;

describe('the plans\' longest inbox lifetimes', () => {
  it('are read from the plan table', () => {
    expect(maxTtlByPlan()).toBe('dev 1 day, startup 7 days, enterprise 30 days');
    const changed = structuredClone(BASE_PLANS) as Record<PlanName, Plan>;
    changed.dev.max_ttl_seconds = 2 * DAY;
    changed.enterprise.max_ttl_seconds = 5_000;
    expect(maxTtlByPlan(changed)).toBe('dev 2 days, startup 7 days, enterprise 5000 seconds');
  });
});

describe('the MCP server\'s create_inbox', () => {
  afterEach(() => jest.resetModules());

  /** The tool as an MCP client lists it, with the client package's limits replaced by `limits`. */
  async function createInboxTool(limits: { DEFAULT_TTL_SECONDS: number; MIN_TTL_SECONDS: number }) {
    jest.doMock('tempmail-client', () => ({ ...jest.requireActual('tempmail-client'), ...limits }));
    const { createServer } = await import('../../mcp/src/server');
    const server = createServer({} as never);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test', version: '0' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    try {
      const { tools } = await client.listTools();
      return tools.find((t) => t.name === 'create_inbox')!;
    } finally {
      await client.close();
      await server.close();
    }
  }

  it('states the default and minimum lifetime from the client\'s constants', async () => {
    const tool = await createInboxTool({ DEFAULT_TTL_SECONDS: 7_200, MIN_TTL_SECONDS: 120 });
    expect(tool.description).toContain('(default 7200, minimum 120, maximum set by the plan)');
    const ttl = (tool.inputSchema.properties as Record<string, { minimum?: number; description?: string }>).ttl;
    expect(ttl.minimum).toBe(120);
    expect(ttl.description).toContain('at least 120');
  });
});
