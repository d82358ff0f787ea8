# OceanCode policy serial 42, payload sha256 f7b1f5258dbbcf3c9b2744403ef09707eaf3e5218fcc3432b4d335e87fb2dff5.
# Chef recipe (written by oceanadmin package --format dir): put this
# directory's etc/oceancode/ files into the cookbook's files/. verify checks
# each file on the node before it replaces the old one.
directory '/etc/oceancode' do
  owner 'root'
  group 'root'
  mode '0755'
end

cookbook_file '/etc/oceancode/trusted_keys' do
  source 'trusted_keys'
  owner 'root'
  group 'root'
  mode '0644'
  verify 'oceanadmin fingerprint %{path}'
end

cookbook_file '/etc/oceancode/requirements.json' do
  source 'requirements.json'
  owner 'root'
  group 'root'
  mode '0644'
  verify 'oceanadmin verify --pubkey /etc/oceancode/trusted_keys %{path}'
end

cookbook_file '/etc/oceancode/managed.json' do
  source 'managed.json'
  owner 'root'
  group 'root'
  mode '0644'
  verify 'oceanadmin validate --kind managed %{path}'
end
