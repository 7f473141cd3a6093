import { CallCredentials, Channel, ChannelCredentials, type ChannelOptions } from '@grpc/grpc-js';
import { isIP, type Socket } from 'node:net';
import { connect, createSecureContext, type SecureContext } from 'node:tls';

/** The CA, and optionally the client certificate and key, that etcd-doctor presents to etcd. */
export interface TlsMaterial {
  rootCertificate?: Buffer;
  certChain?: Buffer;
  privateKey?: Buffer;
}

type SecureConnector = ReturnType<ChannelCredentials['_createSecureConnector']>;

/**
 * grpc-js always sets the TLS ServerName (SNI) to the target host, an IP literal included, and
 * Node then warns (DEP0123, RFC 6066 §3 forbids IP literals in SNI). etcd endpoints are IPs in
 * most clusters, so these credentials do what Go's crypto/tls (etcdctl) does: no SNI for an IP,
 * the certificate still checked against it (IP SAN), and the host name as SNI otherwise.
 */
class MemberTlsCredentials extends ChannelCredentials {
  constructor(
    private readonly host: string,
    private readonly context: SecureContext,
  ) {
    super();
  }

  override _isSecure(): boolean {
    return true;
  }

  override _equals(other: ChannelCredentials): boolean {
    return other === this;
  }

  override _createSecureConnector(
    _target: unknown,
    _options: ChannelOptions,
    callCredentials?: CallCredentials,
  ): SecureConnector {
    return {
      connect: (socket: Socket) => this.handshake(socket),
      waitForReady: () => Promise.resolve(),
      getCallCredentials: () => callCredentials ?? CallCredentials.createEmpty(),
      destroy: () => undefined,
    };
  }

  private handshake(socket: Socket): Promise<{ socket: Socket; secure: boolean }> {
    return new Promise((resolve, reject) => {
      const tlsSocket = connect(
        {
          socket,
          secureContext: this.context,
          ALPNProtocols: ['h2'],
          // Node checks the certificate against `servername || host`.
          host: this.host,
          ...(isIP(this.host) ? {} : { servername: this.host }),
        },
        () => {
          if (!tlsSocket.authorized) reject(tlsSocket.authorizationError);
          else resolve({ socket: tlsSocket, secure: true });
        },
      );
      tlsSocket.on('error', reject);
    });
  }
}

/**
 * etcd3 channel options that make every gRPC channel use MemberTlsCredentials. etcd3 builds its
 * own credentials from `IOptions.credentials`; grpc-js lets a client replace its channel through
 * `channelFactoryOverride`, which receives the `host:port` being dialled.
 */
export function tlsChannelOptions(tls: TlsMaterial): ChannelOptions {
  const context = createSecureContext({
    // No CA given: Node's bundled roots, as etcdctl falls back to the system's.
    ...(tls.rootCertificate ? { ca: tls.rootCertificate } : {}),
    ...(tls.certChain ? { cert: tls.certChain } : {}),
    ...(tls.privateKey ? { key: tls.privateKey } : {}),
  });
  const byHost = new Map<string, MemberTlsCredentials>();
  const credentialsFor = (address: string): MemberTlsCredentials => {
    const host = hostOf(address);
    let creds = byHost.get(host);
    if (!creds) {
      creds = new MemberTlsCredentials(host, context);
      byHost.set(host, creds);
    }
    return creds;
  };
  return {
    channelFactoryOverride: (address: string, _credentials: ChannelCredentials, options: ChannelOptions) =>
      new Channel(address, credentialsFor(address), options),
  };
}

/**
 * etcd3 dials `host:port`, or `ipv4:host:port` / `ipv6:[host]:port` for an IP literal
 * (etcd-clients.ts grpcTarget): `127.0.0.1:2379` -> `127.0.0.1`, `ipv6:[::1]:2379` -> `::1`.
 */
export function hostOf(address: string): string {
  const plain = address.replace(/^ipv[46]:/, '');
  const bracketed = /^\[([^\]]+)\]/.exec(plain);
  if (bracketed?.[1]) return bracketed[1];
  return plain.replace(/:\d+$/, '');
}
