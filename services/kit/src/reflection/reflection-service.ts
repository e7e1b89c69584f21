import { readdirSync } from 'node:fs';
import path from 'node:path';
import { loadSync } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { FileDescriptorProto } from 'protobufjs/ext/descriptor';
import { repairDescriptors, type FileDescriptor } from './descriptors';

/** The standard health service every server carries beside its own (grpc-health-check). */
export const HEALTH_SERVICE = 'grpc.health.v1.Health';

/**
 * The committed contracts: the .proto files of the installed @propdesk/proto package. They sit
 * beside its dist/, so this holds from sources (tests), from dist/ and in the container image.
 */
export function contractsDirectory(): string {
  return path.dirname(require.resolve('@propdesk/proto/package.json'));
}

/** grpc-health-check ships the health.proto its implementation serves. */
function healthProtoDirectory(): string {
  return path.join(path.dirname(require.resolve('grpc-health-check/package.json')), 'proto');
}

/** Every .proto file under propdesk/, relative to the contracts directory, so a new service is found without code. */
export function contractFiles(root = contractsDirectory()): string[] {
  return readdirSync(path.join(root, 'propdesk'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.proto'))
    .map((file) => path.join('propdesk', file))
    .sort();
}

interface RepairedFile {
  descriptor: FileDescriptor;
  encoded: Buffer;
}

let loaded: Map<string, RepairedFile> | undefined;

/** Parsed once per process (every server of the process, and every test server, shares it); by file name. */
function loadContracts(): Map<string, RepairedFile> {
  if (loaded) return loaded;
  // keepCase: descriptors must carry the field names of the .proto files (snake_case), which
  // reflection clients turn into JSON names themselves.
  const definition = loadSync([...contractFiles(), 'health/v1/health.proto'], {
    includeDirs: [contractsDirectory(), healthProtoDirectory()],
    keepCase: true,
  });
  const byName = new Map<string, FileDescriptor>();
  for (const entry of Object.values(definition)) {
    const protos = (entry as { fileDescriptorProtos?: unknown }).fileDescriptorProtos;
    if (!Array.isArray(protos)) continue;
    for (const bytes of protos as Uint8Array[]) {
      const file = FileDescriptorProto.toObject(FileDescriptorProto.decode(bytes)) as FileDescriptor;
      if (file.name && !byName.has(file.name)) byName.set(file.name, file);
    }
  }
  loaded = new Map(
    repairDescriptors([...byName.values()]).map((descriptor) => [
      descriptor.name ?? '',
      { descriptor, encoded: Buffer.from(FileDescriptorProto.encode(FileDescriptorProto.fromObject(descriptor)).finish()) },
    ]),
  );
  return loaded;
}

function servicesOf(file: FileDescriptor): string[] {
  return (file.service ?? []).map((s) => (file.package ? `${file.package}.${s.name}` : `${s.name}`));
}

/** The files declaring these services and everything they import, so nothing else is described. */
function filesFor(names: string[], contracts: Map<string, RepairedFile>): RepairedFile[] {
  const wanted = new Set(names);
  const picked = new Map<string, RepairedFile>();
  const pick = (name: string) => {
    const file = contracts.get(name);
    if (!file || picked.has(name)) return;
    picked.set(name, file);
    for (const dependency of file.descriptor.dependency ?? []) pick(dependency);
  };
  for (const [name, file] of contracts) if (servicesOf(file.descriptor).some((service) => wanted.has(service))) pick(name);
  return [...picked.values()];
}

/**
 * Server reflection (v1 and v1alpha) describing exactly the services a server registers, plus
 * health. A service name without a committed .proto is a programming error and stops the start.
 */
export function createReflectionService(serviceNames: string[]): ReflectionService {
  const contracts = loadContracts();
  const names = [...new Set([...serviceNames, HEALTH_SERVICE])];
  const declared = new Set([...contracts.values()].flatMap((file) => servicesOf(file.descriptor)));
  const unknown = names.filter((name) => !declared.has(name));
  if (unknown.length > 0) throw new Error(`no .proto under ${contractsDirectory()} declares ${unknown.join(', ')}`);
  // @grpc/reflection reads the files from any entry's fileDescriptorProtos: one entry carries them all.
  const carrier = {
    format: 'Protocol Buffer 3 EnumDescriptorProto' as const,
    type: {},
    fileDescriptorProtos: filesFor(names, contracts).map((file) => file.encoded),
  };
  return new ReflectionService({ contracts: carrier }, { services: names });
}
