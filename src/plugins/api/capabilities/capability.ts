/**
 * How a capability is declared: its name and the members a plugin implements to have it. The one
 * source for the type guard (`claimedBy`), for the registry's refusal of a plugin that implements
 * a capability only in part, and for the conformance sub-suites a plugin is run through.
 */
import type { VolumePlugin } from '../core.js';

export interface Capability<Name extends string, Members> {
  readonly name: Name;
  readonly members: ReadonlyArray<keyof Members & string>;
  /** The type guard: every member is a function of the plugin. */
  readonly claimedBy: (plugin: VolumePlugin) => plugin is VolumePlugin & Members;
  /** Some members but not all: a plugin written wrong, never one without the capability. */
  readonly partlyIn: (plugin: VolumePlugin) => boolean;
}

function hasMember(plugin: VolumePlugin, member: string): boolean {
  return typeof (plugin as unknown as Record<string, unknown>)[member] === 'function';
}

export function defineCapability<Members>() {
  return <Name extends string>(name: Name, members: ReadonlyArray<keyof Members & string>): Capability<Name, Members> => ({
    name,
    members,
    claimedBy: (plugin: VolumePlugin): plugin is VolumePlugin & Members => members.every((m) => hasMember(plugin, m)),
    partlyIn: (plugin: VolumePlugin) => members.some((m) => hasMember(plugin, m)) && !members.every((m) => hasMember(plugin, m)),
  });
}
