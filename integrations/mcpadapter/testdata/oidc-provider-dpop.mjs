// A real OAuth 2 authorization server for TestOAuthDPoPOIDCProvider:
// oidc-provider (npm) on a loopback port, with the client-credentials grant,
// DPoP (RFC 9449) with nonces required at the token endpoint, and resource
// indicators issuing JWT access tokens for the resource named on the
// command line. Prints {"issuer", "jwk"} (the token signing key's public
// JWK) as one line, then serves until stdin closes.
//
//   node oidc-provider-dpop.mjs <oidc-provider package dir> <resource URL>
import { createServer } from 'node:http';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
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
    clients: [{
      client_id: 'm2m', client_secret: 'm2m-secret', grant_types: ['client_credentials'],
      redirect_uris: [], response_types: [], token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'ES256',
    }],
    jwks: { keys: [jwk] },
    scopes: ['read'],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      dPoP: { enabled: true, nonceSecret: randomBytes(32), requireNonce: () => true },
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
