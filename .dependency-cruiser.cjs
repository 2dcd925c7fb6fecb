/**
 * The README's folder rules (its "Architecture" section), checked by `npm run lint:deps` on every `npm test`.
 * A breach names the rule below that it breaks; fix the import, not the rule. The layers, lowest first:
 *
 *   lambdas/core/      the domain (addresses, plans, expiry, extraction, webhook records and signing): only core/
 *   lambdas/contract/  the HTTP contract (routes, schemas, OpenAPI, views, gateway responses, CORS, the viewer's
 *                      policy): core/ and itself
 *   lambdas/config/    the one validated config: core/ and contract/
 *   lambdas/layout/    facts the CDK stack, the local stack and an adapter share (the table's layout, what deploys
 *                      behind each route): core/ and contract/
 *   lambdas/usecases/  core/, contract/ (they answer in its views), config/ and each other: storage, mail parsing and
 *                      delivery only through the ports
 *   adapters           lambdas/store/, lambdas/webhooks/{http-sender,queues,secret-box}, lambdas/ingest/{parse-mail,
 *                      mime-headers,lift-parts,parse-thread,parse-worker}, lambdas/checks/ (the mail checks' I/O: DNS,
 *                      HTTP): each family imports core/, config/, layout/ and itself, never another family
 *   lambdas/app/       the composition root: the one module that knows the adapters and builds the context
 *   handlers           lambdas/api/, lambdas/cleanup/, lambdas/ingest/handler, lambdas/webhooks/{dispatcher,sender}, lambdas/deploy/,
 *                      lambdas/http/: use cases and the composition root, no adapter
 *   local/, cli/, bin/ storage only through use cases and the composition root
 *   lib/               the CDK app: core/, contract/, layout/ and its own files; no handler, use case or adapter
 */
const ADAPTER_FAMILIES = {
  store: '^lambdas/store/',
  webhooks: '^lambdas/webhooks/(http-sender|queues|secret-box)[.]ts$',
  mail: '^lambdas/ingest/(parse-mail|mime-headers|lift-parts|parse-thread|parse-worker)[.]ts$',
  checks: '^lambdas/checks/',
};
const ADAPTERS = Object.values(ADAPTER_FAMILIES).map((p) => `(${p})`).join('|');
const HANDLERS = '^lambdas/(api|cleanup|deploy|http)/|^lambdas/ingest/handler[.]ts$|^lambdas/webhooks/(dispatcher|sender)[.]ts$';

/** One rule per adapter family: it may not import any other family. */
const adapterIsolation = Object.entries(ADAPTER_FAMILIES).map(([name, path]) => ({
  name: `adapter-${name}-imports-no-other-adapter`,
  comment: `The ${name} adapters talk to the others only through the ports (lambdas/core/ports.ts), wired in lambdas/app/.`,
  severity: 'error',
  from: { path },
  to: { path: Object.entries(ADAPTER_FAMILIES).filter(([other]) => other !== name).map(([, p]) => `(${p})`).join('|') },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import circle: split the shared part into a module both import.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-imports-only-core',
      comment: 'lambdas/core/ is the domain: it imports nothing of ours outside itself.',
      severity: 'error',
      from: { path: '^lambdas/core/' },
      to: { path: '^(lambdas/(?!core/)|lib/|local/|cli/|bin/|viewer/|client/|mcp/)' },
    },
    {
      name: 'contract-imports-only-core',
      comment: 'lambdas/contract/ is the HTTP contract over the domain: it imports core/ and itself, nothing that runs it.',
      severity: 'error',
      from: { path: '^lambdas/contract/' },
      to: { path: '^(lambdas/(?!(core|contract)/)|lib/|local/|cli/|bin/|viewer/|client/|mcp/)' },
    },
    {
      name: 'config-and-layout-import-only-core-and-contract',
      comment: 'The config and the shared layout and deploy facts sit just above the domain and the contract.',
      severity: 'error',
      from: { path: '^lambdas/(config|layout)/' },
      to: { path: '^(lambdas/(?!(core|contract|config|layout)/)|lib/|local/|cli/|bin/)' },
    },
    {
      name: 'usecases-import-core-and-ports-only',
      comment: 'A use case reaches storage, mail parsing and delivery through the ports it is handed, never an adapter.',
      severity: 'error',
      from: { path: '^lambdas/usecases/' },
      to: { path: '^(lambdas/(?!(core|contract|config|usecases)/)|lib/|local/|cli/|bin/)' },
    },
    ...adapterIsolation,
    {
      name: 'adapters-import-no-higher-layer',
      comment: 'An adapter implements a port; it does not call use cases, handlers or the composition root.',
      severity: 'error',
      from: { path: ADAPTERS },
      to: { path: `^lambdas/(usecases|app|api|http|deploy)/|${HANDLERS}|^(lib|local|cli|bin)/` },
    },
    {
      name: 'handlers-use-no-adapter',
      comment: 'Handlers run use cases on the context the composition root (lambdas/app/) builds.',
      severity: 'error',
      from: { path: HANDLERS },
      to: { path: ADAPTERS },
    },
    {
      name: 'local-and-cli-reach-storage-through-usecases',
      comment: 'local/, cli/ and bin/ reach storage only through the use cases and the composition root (lambdas/app/).',
      severity: 'error',
      from: { path: '^(local|cli|bin)/' },
      to: { path: ADAPTERS },
    },
    {
      name: 'cdk-imports-no-runtime-code',
      comment: 'lib/ (the CDK app) loads no handler, use case or adapter: facts it shares with them live in core/, contract/ or layout/.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^lambdas/(?!(core|contract|layout)/)|^(local|cli)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/|^cdk[.]out/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // requires by a computed name are invisible to every tool; none may remain (the composition root imports).
    exoticRequireStrings: [],
    reporterOptions: { text: { highlightFocused: true } },
  },
};
