import tseslint from 'typescript-eslint';
import { tiers as controlPlaneTiers } from './apps/control-plane/tiers.mjs';
import { folderLayers } from './tools/eslint/folder-layers.mjs';
import { moduleBoundaries } from './tools/eslint/module-boundaries.mjs';

// The architecture as dependency rules: contracts and pure logic import no framework,
// the agent and the command-line client import no Nest, TypeORM or pg, and only tests may use the
// testing library.
const depConstraints = [
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:contract', 'type:domain', 'type:infra'] },
  { sourceTag: 'type:contract', onlyDependOnLibsWithTags: [], bannedExternalImports: ['@nestjs/*', 'typeorm', 'pg', 'ws', 'fastify'] },
  {
    sourceTag: 'type:domain',
    onlyDependOnLibsWithTags: ['type:contract'],
    bannedExternalImports: ['@nestjs/*', 'typeorm', 'pg', 'ws', 'fastify'],
  },
  { sourceTag: 'type:infra', onlyDependOnLibsWithTags: ['type:contract'], bannedExternalImports: ['@nestjs/*', 'typeorm', 'fastify'] },
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:contract', 'type:infra'], bannedExternalImports: ['@nestjs/*'] },
  { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:contract', 'type:testing'], bannedExternalImports: ['@nestjs/*', 'typeorm'] },
  { sourceTag: 'scope:agent', onlyDependOnLibsWithTags: ['scope:shared'], bannedExternalImports: ['@nestjs/*', 'typeorm', 'pg'] },
  // The web console runs in a browser: it speaks only the public API, and may share pure formats.
  {
    sourceTag: 'type:web',
    onlyDependOnLibsWithTags: ['type:domain'],
    bannedExternalImports: ['@nestjs/*', 'typeorm', 'pg', 'ws', 'fastify'],
  },
  { sourceTag: 'scope:cli', onlyDependOnLibsWithTags: ['scope:shared'], bannedExternalImports: ['@nestjs/*', 'typeorm', 'pg', 'fastify'] },
];
const testConstraints = depConstraints.map((c) =>
  c.sourceTag === 'type:app' ? { ...c, onlyDependOnLibsWithTags: [...c.onlyDependOnLibsWithTags, 'type:testing'] } : c,
);
const TESTS = ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', '**/test-support/**/*.ts'];
// The agent's top-level folders, lowest tier first: each imports only from itself and lower tiers
// (host runs programs and reads files, state keeps the outbox's frames in files, drivers run guests on it, reports and the HA lease watch
// the drivers, commands serve the protocol on all of them, requests run the commands); agent.ts and
// main.ts sit above every tier. Tests may join the layers they test.
const agentLayers = {
  root: 'apps/agent/src',
  tiers: [['logging', 'config'], ['host', 'connection'], ['state'], ['drivers'], ['reports'], ['ha'], ['commands'], ['requests']],
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.nx/**', 'var/**', 'coverage/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mjs', '**/*.cjs'],
    plugins: { corral: { rules: { 'module-boundaries': moduleBoundaries, 'folder-layers': folderLayers } } },
    rules: {
      'corral/module-boundaries': ['error', { depConstraints }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'no-console': 'error',
      eqeqeq: 'error',
    },
  },
  { files: TESTS, rules: { 'corral/module-boundaries': ['error', { depConstraints: testConstraints }] } },
  { files: ['apps/agent/src/**/*.ts'], ignores: TESTS, rules: { 'corral/folder-layers': ['error', agentLayers] } },
  {
    files: ['apps/control-plane/src/**/*.ts'],
    ignores: TESTS,
    rules: { 'corral/folder-layers': ['error', { root: 'apps/control-plane/src', tiers: controlPlaneTiers }] },
  },
  {
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' } },
  },
);
