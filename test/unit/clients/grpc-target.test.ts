import { describe, expect, it } from '@jest/globals';
import { grpcTarget } from '../../../src/clients/etcd-clients.js';
import { hostOf } from '../../../src/clients/grpc-tls.js';

describe('grpcTarget', () => {
  it('dials an IPv4 literal through the ipv4: scheme, with its port', () => {
    expect(grpcTarget('http://127.0.0.1:2379')).toBe('ipv4:127.0.0.1:2379');
    expect(grpcTarget('https://127.0.0.2:2379/')).toBe('ipv4:127.0.0.2:2379');
  });

  it('dials an IPv6 literal through the ipv6: scheme, bracketed', () => {
    expect(grpcTarget('https://[::1]:2379')).toBe('ipv6:[::1]:2379');
  });

  it('leaves DNS names and URLs without a port to etcd3 and the DNS resolver', () => {
    expect(grpcTarget('https://etcd-0.example:2379')).toBe('http://etcd-0.example:2379');
    expect(grpcTarget('http://127.0.0.1')).toBe('http://127.0.0.1');
    expect(grpcTarget('HTTPS://etcd-0.example:2379')).toBe('http://etcd-0.example:2379');
  });

  it('gives the TLS handshake the bare host back from either form', () => {
    expect(hostOf('ipv4:127.0.0.1:2379')).toBe('127.0.0.1');
    expect(hostOf('ipv6:[::1]:2379')).toBe('::1');
    expect(hostOf('etcd-0.example:2379')).toBe('etcd-0.example');
  });
});
