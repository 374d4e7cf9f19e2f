// A real OAuth 2 authorization server for TestSignInOIDCProvider:
// oidc-provider (npm) on a loopback port with the authorization code grant
// (PKCE), its development login and consent forms (any login name is
// accepted as that account), dynamic client registration, RFC 9207 iss in
// authorization responses, token revocation, and resource indicators
// issuing JWT access tokens (sub = the login name) for the resource named
// on the command line. Prints {"issuer", "jwk"} as one line, then serves
// until stdin closes.
//
//   node oidc-provider-signin.mjs <oidc-provider package dir> <resource URL>
import { createServer } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';

const [pkgDir, resource] = process.argv.slice(2);
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const entry = typeof pkg.exports === 'string' ? pkg.exports : (pkg.exports?.['.']?.import ?? pkg.exports?.['.'] ?? pkg.main);
const { default: Provider } = await import(pathToFileURL(join(pkgDir, typeof entry === 'string' ? entry : entry.default)).href);

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256', use: 'sig' };
const pub = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256', use: 'sig' };

const server = createServer();
server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    scopes: ['read', 'offline_access'],
    clientDefaults: { id_token_signed_response_alg: 'ES256', grant_types: ['authorization_code', 'refresh_token'] },
    issueRefreshToken: async () => true,
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({ scope: 'read', accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } }),
      },
    },
  });
  server.on('request', provider.callback());
  process.stdout.write(JSON.stringify({ issuer, jwk: pub }) + '\n');
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
