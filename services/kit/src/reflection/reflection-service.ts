import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { ReflectionService } from '@grpc/reflection';

/** The standard health service every server carries beside its own (grpc-health-check). */
export const HEALTH_SERVICE = 'grpc.health.v1.Health';

/**
 * The descriptor sets `npm run gen` builds with `buf build` beside the generated code (committed,
 * and checked fresh in CI like the rest of gen/): every contract under propdesk/ with the files it
 * imports, and the health.proto grpc-health-check ships and serves. They are what protoc makes
 * (absolute type names, imports listed, map entries and proto3 `optional` as written), so strict
 * reflection clients (buf curl, grpcurl) take them as they are.
 */
export const DESCRIPTOR_SETS = ['gen/descriptors.binpb', 'gen/health.binpb'];

/**
 * The committed contracts: the installed @propdesk/proto package, whose gen/ holds the descriptor
 * sets. It sits beside its dist/, so this holds from sources (tests), from dist/ and in the image.
 */
export function contractsDirectory(): string {
  return path.dirname(require.resolve('@propdesk/proto/package.json'));
}

interface ContractFile {
  proto: FileDescriptorProto;
  encoded: Buffer;
}

let loaded: Map<string, ContractFile> | undefined;

/** Read once per process (every server of the process, and every test server, shares them); by file name. */
function loadContracts(): Map<string, ContractFile> {
  if (loaded) return loaded;
  const files = new Map<string, ContractFile>();
  for (const set of DESCRIPTOR_SETS) {
    for (const proto of fromBinary(FileDescriptorSetSchema, readFileSync(path.join(contractsDirectory(), set))).file) {
      if (!files.has(proto.name)) files.set(proto.name, { proto, encoded: Buffer.from(toBinary(FileDescriptorProtoSchema, proto)) });
    }
  }
  loaded = files;
  return files;
}

function servicesOf(file: FileDescriptorProto): string[] {
  return file.service.map((s) => (file.package ? `${file.package}.${s.name}` : s.name));
}

/** The files declaring these services and everything they import, so nothing else is described. */
function filesFor(names: string[], contracts: Map<string, ContractFile>): ContractFile[] {
  const wanted = new Set(names);
  const picked = new Map<string, ContractFile>();
  const pick = (name: string) => {
    const file = contracts.get(name);
    if (!file || picked.has(name)) return;
    picked.set(name, file);
    for (const dependency of file.proto.dependency) pick(dependency);
  };
  for (const [name, file] of contracts) if (servicesOf(file.proto).some((service) => wanted.has(service))) pick(name);
  return [...picked.values()];
}

/**
 * Server reflection (v1 and v1alpha) describing exactly the services a server registers, plus
 * health. A service name without a committed contract is a programming error and stops the start.
 */
export function createReflectionService(serviceNames: string[]): ReflectionService {
  const contracts = loadContracts();
  const names = [...new Set([...serviceNames, HEALTH_SERVICE])];
  const declared = new Set([...contracts.values()].flatMap((file) => servicesOf(file.proto)));
  const unknown = names.filter((name) => !declared.has(name));
  if (unknown.length > 0) throw new Error(`no contract in ${contractsDirectory()}/gen declares ${unknown.join(', ')}`);
  // @grpc/reflection reads the files from any package-definition entry's fileDescriptorProtos: one
  // entry carries them all, as buf built them. (proto-loader's loadFileDescriptorSetFromBuffer would
  // rebuild them through protobufjs, which loses imports, absolute names, map entry names and
  // proto3 optional on the way: grpc/grpc-node#2595.)
  const carrier = {
    format: 'Protocol Buffer 3 EnumDescriptorProto' as const,
    type: {},
    fileDescriptorProtos: filesFor(names, contracts).map((file) => file.encoded),
  };
  return new ReflectionService({ contracts: carrier }, { services: names });
}
