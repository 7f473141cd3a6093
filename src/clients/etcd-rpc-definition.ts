import protobuf from 'protobufjs/light.js';

/*
 * etcd3's gRPC package definition, built cheaply. etcd3 (lib/connection-pool.js) calls
 * @grpc/proto-loader's loadSync(rpc.proto) when it is imported: the .proto text is parsed, and a
 * descriptor (toDescriptor, toObject) is made for every message of every method, which only gRPC
 * reflection servers read. That was ~110 ms of a 600 ms `etcd-doctor health` (issue 18).
 *
 * The CLI bundle (scripts/build-cli.mjs) replaces that call with lazyPackageDefinition(): the same
 * proto, parsed at build time by protobufjs with proto-loader's options, arrives here as
 * protobufjs JSON, and each message type is looked up, and its codec generated, on its first call.
 * Serializers and deserializers are proto-loader's (createSerializer, createDeserializer in
 * @grpc/proto-loader/build/src/index.js), so the bytes on the wire and the objects etcd3 receives
 * are the same; test/unit/clients/etcd-rpc-definition.test.ts compares the two for every method.
 */

/** The toObject options etcd3 passes to loadSync (longs: String, enums: String, ...). */
export type RpcLoadOptions = protobuf.IConversionOptions;

interface MethodDefinition {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  requestSerialize: (value: object) => Buffer;
  requestDeserialize: (bytes: Buffer) => object;
  responseSerialize: (value: object) => Buffer;
  responseDeserialize: (bytes: Buffer) => object;
  originalName: string;
}

export type ServiceDefinition = Record<string, MethodDefinition>;

/**
 * proto-loader names client methods with lodash.camelcase, which splits words at case changes:
 * `HashKV` becomes `hashKv`, `LeaseTimeToLive` `leaseTimeToLive`. The same word split for the
 * PascalCase names of .proto methods (the test compares every method of etcd3's rpc.proto).
 */
function camelCase(name: string): string {
  const words = name.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g) ?? [name];
  return words
    .map((w, i) => (i === 0 ? w.toLowerCase() : w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()))
    .join('');
}

/** A type looked up in the root on first use, then kept. */
function lazyType(root: protobuf.Root, name: string): () => protobuf.Type {
  let type: protobuf.Type | undefined;
  return () => {
    type ??= root.lookupType(name);
    return type;
  };
}

function serializer(type: () => protobuf.Type): (value: object) => Buffer {
  return (value) => {
    const cls = type();
    if (Array.isArray(value))
      throw new Error(
        `Failed to serialize message: expected object with ${cls.name} structure, got array instead`,
      );
    return cls.encode(cls.fromObject(value)).finish() as Buffer;
  };
}

function deserializer(type: () => protobuf.Type, options: RpcLoadOptions): (bytes: Buffer) => object {
  return (bytes) => {
    const cls = type();
    return cls.toObject(cls.decode(bytes), options);
  };
}

function methodDefinition(
  root: protobuf.Root,
  service: protobuf.Service,
  serviceName: string,
  method: protobuf.Method,
  options: RpcLoadOptions,
): MethodDefinition {
  // Type names resolve relative to the service, as protobufjs's Method.resolve does.
  const request = lazyType(root, service.lookupType(method.requestType).fullName);
  const response = lazyType(root, service.lookupType(method.responseType).fullName);
  return {
    path: `/${serviceName}/${method.name}`,
    requestStream: Boolean(method.requestStream),
    responseStream: Boolean(method.responseStream),
    requestSerialize: serializer(request),
    requestDeserialize: deserializer(request, options),
    responseSerialize: serializer(response),
    responseDeserialize: deserializer(response, options),
    originalName: camelCase(method.name),
  };
}

/** Every service in the namespace tree, by its dotted name without the leading dot. */
function servicesOf(ns: protobuf.NamespaceBase, prefix: string): Array<[string, protobuf.Service]> {
  return ns.nestedArray.flatMap((child): Array<[string, protobuf.Service]> => {
    const name = prefix ? `${prefix}.${child.name}` : child.name;
    if (child instanceof protobuf.Service) return [[name, child]];
    if (child instanceof protobuf.Namespace) return servicesOf(child, name);
    return [];
  });
}

/**
 * The service part of a package definition (what grpc.loadPackageDefinition turns into client
 * constructors), from protobufjs JSON. Message and enum entries, used only by reflection, are left out.
 */
export function lazyPackageDefinition(
  json: protobuf.INamespace,
  options: RpcLoadOptions,
): Record<string, ServiceDefinition> {
  const root = protobuf.Root.fromJSON(json);
  const definition: Record<string, ServiceDefinition> = {};
  for (const [name, service] of servicesOf(root, '')) {
    const methods: ServiceDefinition = {};
    for (const method of service.methodsArray)
      methods[method.name] = methodDefinition(root, service, name, method, options);
    definition[name] = methods;
  }
  return definition;
}
