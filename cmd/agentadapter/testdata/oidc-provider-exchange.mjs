// A real authorization server for TestServeTokenExchange: oidc-provider
// (npm) on a loopback port, configured by the JSON file the test writes:
//
//   {"jwk": <the ES256 signing key, a private JWK>, "gateway": <the
//    gateway's resource>, "upstream": <the upstream MCP server's URL>,
//    "upstreamTTL": <seconds an exchanged token lives>,
//    "signInRedirect": <optional: the gateway's sign-in callback>}
//
// With signInRedirect set (TestFleetSignIn), client "gw-signin" may also
// sign users in through the authorization code grant (PKCE) to that
// redirect URI, with oidc-provider's development login and consent forms
// (any login name is that account), and access tokens for the upstream.
//
// oidc-provider has no token exchange: this registers RFC 8693's grant
// (urn:ietf:params:oauth:grant-type:token-exchange) for client "gw". The
// handler accepts as subject_token only this provider's own JWT access
// token for the gateway's resource (signature, issuer, audience, expiry),
// one it issued (by jti: oidc-provider does not store JWT access tokens, so
// this script records them) and whose grant is not revoked (Grant.find),
// and issues an access token for the requested resource (the
// upstream only) with the same accountId. Client "gw" also has the
// client-credentials grant (the gateway's shared identity, which lists the
// upstream's tools).
//
// Test-only shortcuts, on this loopback server only: the grant
// urn:agentadapter:test:mint (client "tester") mints a gateway token for a
// named account, standing in for a user's sign-in; POST /test/revoke?account=
// destroys that account's grants; GET /test/exchanges counts exchanges.
//
// Prints {"issuer"} as one line, then serves until stdin closes.
//
//   node oidc-provider-exchange.mjs <oidc-provider package dir> <config.json>
import { createServer } from 'node:http';
import { createPublicKey } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';

const [pkgDir, configFile] = process.argv.slice(2);
const conf = JSON.parse(readFileSync(configFile, 'utf8'));
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const entry = typeof pkg.exports === 'string' ? pkg.exports : (pkg.exports?.['.']?.import ?? pkg.exports?.['.'] ?? pkg.main);
const mod = await import(pathToFileURL(join(pkgDir, typeof entry === 'string' ? entry : entry.default)).href);
const { default: Provider, errors } = mod;
const { jwtVerify } = await import(pathToFileURL(join(pkgDir, '..', 'jose', 'dist', 'webapi', 'index.js')).href);

const AT = 'urn:ietf:params:oauth:token-type:access_token';
const JWT = 'urn:ietf:params:oauth:token-type:jwt';
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const MINT = 'urn:agentadapter:test:mint';
const publicKey = createPublicKey({ key: conf.jwk, format: 'jwk' });

const resourceInfo = (resource) => ({
  scope: 'mcp', audience: resource, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } },
  accessTokenTTL: resource === conf.upstream ? conf.upstreamTTL : 600,
});

let exchanges = 0;
const grantsOf = new Map(); // accountId -> [grantId]
const issued = new Map(); // jti of a gateway token -> { accountId, grantId }

const server = createServer();
server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    ttl: { Grant: 3600, AccessToken: (ctx, token) => token.resourceServer?.accessTokenTTL ?? 600 },
    clients: [
      { client_id: 'gw', client_secret: 'gw-exchange-secret', grant_types: ['client_credentials', EXCHANGE],
        redirect_uris: [], response_types: [], token_endpoint_auth_method: 'client_secret_basic', id_token_signed_response_alg: 'ES256' },
      { client_id: 'tester', client_secret: 'tester-secret', grant_types: [MINT],
        redirect_uris: [], response_types: [], token_endpoint_auth_method: 'client_secret_basic', id_token_signed_response_alg: 'ES256' },
      ...(conf.signInRedirect ? [{ client_id: 'gw-signin', client_secret: 'gw-signin-secret', grant_types: ['authorization_code'],
        redirect_uris: [conf.signInRedirect], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic',
        id_token_signed_response_alg: 'ES256' }] : []),
    ],
    jwks: { keys: [conf.jwk] },
    scopes: ['mcp'],
    features: {
      devInteractions: { enabled: Boolean(conf.signInRedirect) },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => conf.upstream,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, resource) => {
          if (resource !== conf.upstream && resource !== conf.gateway) throw new errors.InvalidTarget();
          return resourceInfo(resource);
        },
      },
    },
  });

  provider.registerGrantType(MINT, async (ctx) => {
    const { account } = ctx.oidc.params;
    if (!account) throw new errors.InvalidRequest('account is missing');
    const grant = new provider.Grant({ accountId: account, clientId: ctx.oidc.client.clientId });
    grant.addResourceScope(conf.gateway, 'mcp');
    const grantId = await grant.save();
    grantsOf.set(account, [...(grantsOf.get(account) ?? []), grantId]);
    const at = new provider.AccessToken({ accountId: account, client: ctx.oidc.client, grantId, scope: 'mcp' });
    at.resourceServer = new provider.ResourceServer(conf.gateway, resourceInfo(conf.gateway));
    const value = await at.save();
    issued.set(at.jti, { accountId: account, grantId });
    ctx.body = { access_token: value, token_type: 'Bearer', expires_in: at.expiration };
  }, ['account']);

  provider.registerGrantType(EXCHANGE, async (ctx) => {
    const p = ctx.oidc.params;
    if (p.subject_token_type !== AT && p.subject_token_type !== JWT) throw new errors.InvalidRequest('unsupported subject_token_type');
    if (p.requested_token_type && p.requested_token_type !== AT) throw new errors.InvalidRequest('unsupported requested_token_type');
    if (!p.subject_token) throw new errors.InvalidRequest('subject_token is missing');
    let payload;
    try {
      ({ payload } = await jwtVerify(p.subject_token, publicKey, { issuer, audience: conf.gateway, algorithms: ['ES256'] }));
    } catch {
      throw new errors.InvalidGrant('subject_token is not a valid token of this issuer for the gateway');
    }
    const stored = issued.get(payload.jti);
    if (!stored || stored.accountId !== payload.sub) throw new errors.InvalidGrant('subject_token is not active');
    const grant = await provider.Grant.find(stored.grantId);
    if (!grant) throw new errors.InvalidGrant('the grant of subject_token is revoked');
    const resource = p.resource ?? conf.upstream;
    if (resource !== conf.upstream) throw new errors.InvalidTarget('only the upstream may be asked for');
    const at = new provider.AccessToken({ accountId: stored.accountId, client: ctx.oidc.client, grantId: stored.grantId, scope: 'mcp' });
    at.resourceServer = new provider.ResourceServer(resource, resourceInfo(resource));
    exchanges++;
    ctx.body = { access_token: await at.save(), issued_token_type: AT, token_type: 'Bearer', expires_in: at.expiration };
  }, ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'actor_token', 'actor_token_type']);

  const callback = provider.callback();
  server.on('request', async (req, res) => {
    const u = new URL(req.url, issuer);
    if (u.pathname === '/test/exchanges') {
      res.end(JSON.stringify({ exchanges }));
      return;
    }
    if (u.pathname === '/test/revoke' && req.method === 'POST') {
      for (const id of grantsOf.get(u.searchParams.get('account')) ?? []) {
        const g = await provider.Grant.find(id);
        if (g) await g.destroy();
      }
      res.end('{}');
      return;
    }
    callback(req, res);
  });
  process.stdout.write(JSON.stringify({ issuer }) + '\n');
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
