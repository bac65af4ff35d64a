import { type Static, Type } from 'typebox';

/**
 * The settings of the cloud kinds (CONTRACT 6.4, 6.9), on a slot or on one of its deployments (a
 * deployment's own win): Azure's API version and Entra ID client, Bedrock's region, Vertex's
 * project, location and key file. Every kind takes `modelMap`. Secrets among them
 * (`azure.clientSecret`) are never logged.
 */
const strict = { additionalProperties: false } as const;
const Text = (description: string) => Type.String({ minLength: 1, maxLength: 512, description });

export const AzureIdentitySchema = Type.Object(
  {
    tenantId: Text('The Entra ID tenant (directory) id.'),
    clientId: Text("The app registration's client id."),
    clientSecret: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Its secret; AZURE_CLIENT_SECRET when absent. Never logged.',
      }),
    ),
    authorityHost: Type.Optional(
      Text('Where tokens come from; https://login.microsoftonline.com when absent.'),
    ),
  },
  strict,
);
export type AzureIdentity = Static<typeof AzureIdentitySchema>;

export const CloudFileSchema = {
  apiVersion: Type.Optional(Text('azure: the dated API version (deployments URLs); absent: the v1 API.')),
  azure: Type.Optional(AzureIdentitySchema),
  project: Type.Optional(Text('vertex: the Google Cloud project.')),
  location: Type.Optional(Text('vertex: the region, or `global`.')),
  credentialsFile: Type.Optional(
    Text("vertex: a service-account key file; absent: Google's Application Default Credentials."),
  ),
  modelMap: Type.Optional(
    Type.Record(Type.String({ minLength: 1 }), Type.String({ minLength: 1, maxLength: 512 }), {
      description: "The name clients use → the upstream's model id (a Bedrock id, an Azure deployment).",
    }),
  ),
};

/** What the cloud kinds read of a slot or deployment, resolved (a deployment's own over its slot's). */
export interface CloudSettings {
  apiVersion: string | undefined;
  azure: AzureIdentity | undefined;
  /** bedrock: the AWS region; absent: the AWS SDK's own (AWS_REGION, the profile). */
  region: string | undefined;
  project: string | undefined;
  location: string | undefined;
  credentialsFile: string | undefined;
}

export type ModelMap = Readonly<Record<string, string>>;

/** The upstream's id of a model, through the map; the name itself when it maps to nothing. */
export function mappedModel(map: ModelMap, model: string): string {
  return Object.hasOwn(map, model) ? (map[model] as string) : model;
}
