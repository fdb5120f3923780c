/**
 * The folder of the package a bundled module comes from, as its path in the bundler's module list
 * (`./node_modules/@octokit/core/node_modules/@octokit/request/dist-bundle/index.js` →
 * `node_modules/@octokit/core/node_modules/@octokit/request`): the innermost `node_modules/<name>`,
 * nested copies kept apart from the top-level one (which may not exist). Undefined for the
 * project's own files.
 */
export function packageDirOf(modulePath: string): string | undefined {
  const path = modulePath.replace(/^\.\//, '');
  const marker = 'node_modules/';
  const at = path.lastIndexOf(marker);
  if (at < 0) return undefined;
  const [scope = '', name = ''] = path.slice(at + marker.length).split('/');
  const pkg = scope.startsWith('@') ? name && `${scope}/${name}` : scope;
  return pkg ? `${path.slice(0, at)}${marker}${pkg}` : undefined;
}
