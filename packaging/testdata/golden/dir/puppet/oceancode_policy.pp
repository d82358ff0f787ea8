# OceanCode policy serial 42, payload sha256 f7b1f5258dbbcf3c9b2744403ef09707eaf3e5218fcc3432b4d335e87fb2dff5.
# Puppet class (written by oceanadmin package --format dir): put this
# directory's etc/oceancode/ files into the module's files/. validate_cmd
# checks each file on the node before it replaces the old one.
class oceancode_policy {
  file { '/etc/oceancode':
    ensure => directory,
    owner  => 'root',
    group  => 'root',
    mode   => '0755',
  }

  file { '/etc/oceancode/trusted_keys':
    ensure       => file,
    source       => 'puppet:///modules/oceancode_policy/trusted_keys',
    owner        => 'root',
    group        => 'root',
    mode         => '0644',
    validate_cmd => '/usr/bin/oceanadmin fingerprint %',
  }

  file { '/etc/oceancode/requirements.json':
    ensure       => file,
    source       => 'puppet:///modules/oceancode_policy/requirements.json',
    owner        => 'root',
    group        => 'root',
    mode         => '0644',
    validate_cmd => '/usr/bin/oceanadmin verify --pubkey /etc/oceancode/trusted_keys %',
    require      => File['/etc/oceancode/trusted_keys'],
  }

  file { '/etc/oceancode/managed.json':
    ensure       => file,
    source       => 'puppet:///modules/oceancode_policy/managed.json',
    owner        => 'root',
    group        => 'root',
    mode         => '0644',
    validate_cmd => '/usr/bin/oceanadmin validate --kind managed %',
  }
}
