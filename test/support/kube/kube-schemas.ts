import * as k8s from '@kubernetes/client-node';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import {
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
} from 'kubernetes-models/admissionregistration.k8s.io/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import {
  ClusterRole,
  ClusterRoleBinding,
  Role,
  RoleBinding,
} from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { ConfigMap, Service, ServiceAccount } from 'kubernetes-models/v1';
import type { KubeObject } from '../deploy/kustomize.js';

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: never) => Validatable;

/** The kinds etcd-doctor's manifests may contain, each with its schema (kubernetes-models, Kubernetes 1.27). */
const MODELS: Record<string, ModelClass> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy': ValidatingAdmissionPolicy,
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding': ValidatingAdmissionPolicyBinding,
};

/**
 * Schema errors of one object: types, required fields and enums (kubernetes-models), plus fields the
 * API does not know (a typo such as `readinesProbe` passes the JSON schemas, which allow extra fields,
 * but is dropped or refused by the API server). Fields are checked for built-in kinds only.
 */
export function schemaErrors(object: KubeObject): string[] {
  const Model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (!Model)
    return [`no schema for ${object.apiVersion} ${object.kind}: add it to test/support/kube-schemas.ts`];
  const errors: string[] = [];
  try {
    new Model(object as never).validate();
  } catch (err) {
    errors.push(err instanceof Error ? err.message : String(err));
  }
  const version = object.apiVersion.split('/').at(-1) ?? '';
  const typeName = `${version.charAt(0).toUpperCase()}${version.slice(1)}${object.kind}`;
  if (attributeTypes(typeName)) {
    errors.push(...unknownFields(object, typeName, '').map((path) => `unknown field ${path}`));
  }
  return errors;
}

interface Attribute {
  baseName: string;
  type: string;
}

/** The typed models of @kubernetes/client-node list every field of every built-in type. */
function attributeTypes(typeName: string): Attribute[] | undefined {
  const model: unknown = (k8s as unknown as Record<string, unknown>)[typeName];
  if (typeof model !== 'function') return undefined;
  const getter: unknown = (model as { getAttributeTypeMap?: unknown }).getAttributeTypeMap;
  return typeof getter === 'function' ? (getter.call(model) as Attribute[]) : undefined;
}

function unknownFields(value: unknown, typeName: string, path: string): string[] {
  const item = /^Array<(.+)>$/.exec(typeName)?.[1];
  if (item !== undefined) {
    return Array.isArray(value) ? value.flatMap((v, i) => unknownFields(v, item, `${path}[${i}]`)) : [];
  }
  const attributes = attributeTypes(typeName);
  if (!attributes || typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const known = new Map(attributes.map((a) => [a.baseName, a.type]));
  return Object.entries(value).flatMap(([key, v]) => {
    const type = known.get(key);
    return type === undefined ? [`${path}.${key}`] : unknownFields(v, type, `${path}.${key}`);
  });
}
