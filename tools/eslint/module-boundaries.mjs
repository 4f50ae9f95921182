// Nx tags made real without @nx/eslint-plugin (whose releases stop at 23.x and would install a
// second Nx next to nx 24): each project's tags come from its project.json, and an import that a
// dependency constraint forbids fails the lint. Same constraint format as Nx's own rule.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

function loadProjects() {
  const roots = ['apps', 'libs'].flatMap((group) =>
    existsSync(join(ROOT, group)) ? readdirSync(join(ROOT, group)).map((name) => join(ROOT, group, name)) : [],
  );
  roots.push(join(ROOT, 'test'), join(ROOT, 'tools'));
  return roots
    .filter((root) => existsSync(join(root, 'project.json')))
    .map((root) => {
      const project = JSON.parse(readFileSync(join(root, 'project.json'), 'utf8'));
      const manifest = join(root, 'package.json');
      const packageName = existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).name : null;
      return { name: project.name, root, tags: project.tags ?? [], packageName, application: project.projectType === 'application' };
    })
    .sort((a, b) => b.root.length - a.root.length);
}

const projects = loadProjects();
const projectOfFile = (file) => projects.find((project) => file === project.root || file.startsWith(project.root + sep));
const globToRegExp = (glob) => new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
const packageOf = (source) =>
  source
    .split('/')
    .slice(0, source.startsWith('@') ? 2 : 1)
    .join('/');

/** @type {import('eslint').Rule.RuleModule} */
export const moduleBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'Enforce the dependency constraints between tagged projects' },
    schema: [
      {
        type: 'object',
        properties: {
          depConstraints: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                sourceTag: { type: 'string' },
                onlyDependOnLibsWithTags: { type: 'array', items: { type: 'string' } },
                bannedExternalImports: { type: 'array', items: { type: 'string' } },
              },
              required: ['sourceTag'],
              additionalProperties: false,
            },
          },
        },
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const source = projectOfFile(context.filename);
    if (!source) return {};
    const constraints = (context.options[0]?.depConstraints ?? []).filter((c) => source.tags.includes(c.sourceTag));

    function check(node, specifier) {
      if (typeof specifier !== 'string') return;
      const report = (message) => context.report({ node, message });
      if (specifier.startsWith('.')) {
        const target = projectOfFile(resolve(dirname(context.filename), specifier));
        if (target !== source)
          report(`'${specifier}' reaches into project '${target?.name ?? 'outside any project'}': import a library by its package name`);
        return;
      }
      const target = projects.find((project) => project.packageName === specifier);
      if (target) {
        if (target.application) return report(`'${specifier}' is an application: applications are not imported`);
        for (const c of constraints) {
          const allowed = c.onlyDependOnLibsWithTags;
          if (allowed && !target.tags.some((tag) => allowed.includes(tag))) {
            report(
              `a project tagged '${c.sourceTag}' may only depend on libraries tagged ${allowed.map((t) => `'${t}'`).join(', ') || '(none)'}: '${specifier}' is tagged ${target.tags.join(', ')}`,
            );
          }
        }
        return;
      }
      if (specifier.startsWith('node:')) return;
      const name = packageOf(specifier);
      for (const c of constraints) {
        const banned = (c.bannedExternalImports ?? []).find((glob) => globToRegExp(glob).test(name));
        if (banned) report(`a project tagged '${c.sourceTag}' must not import '${name}' (banned: '${banned}')`);
      }
    }

    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};
