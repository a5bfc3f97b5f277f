<#
.SYNOPSIS
    Forward the GPU services running in WSL2 to this PC's LAN address, and open the firewall
    for them. Idempotent; -Remove undoes it.

.DESCRIPTION
    WSL2 (NAT networking) gives the Linux side a private address that changes at every WSL
    boot, and the LAN cannot reach it. For each port this script adds a
    `netsh interface portproxy` rule LAN_IP:port -> WSL_IP:port and an inbound firewall rule
    for LAN_IP:port. Run it again whenever WSL restarts (or register it at logon with
    -RegisterTask): rules that are already right are left alone, stale ones are replaced.

    It refuses a Tailscale address (100.64.0.0/10) or any address that is not a private LAN
    address (10/8, 172.16/12, 192.168/16), and an address this PC does not have: the cluster's
    Endpoints must name the same LAN address (deploy/k8s/services.toml).

    The services in WSL must listen on 0.0.0.0 (or the WSL address), not only on 127.0.0.1:
    the proxy connects to the WSL address. Run from an elevated PowerShell.

.PARAMETER ListenAddress
    This PC's LAN IPv4 address, as in `ipconfig` (e.g. 192.168.31.2). Give the PC a DHCP
    reservation so it stays the same. Optional with -Remove (then every listen address).

.PARAMETER Ports
    The TCP ports to forward: translation server 8890, GPU status API 8001, vLLM 8000,
    ComfyUI 8188, ASR 9000. Keep in step with deploy/k8s/services.toml. JupyterLab (8888) is
    deliberately not here: a Jupyter terminal is a shell; reach it over Tailscale only.

.PARAMETER Distro
    The WSL distribution (`wsl -l -v`); default: the default distribution.

.PARAMETER RemoteAddress
    Who may connect, in New-NetFirewallRule syntax. Default LocalSubnet (the LAN this PC is
    on). If the cluster is on another subnet, give it, e.g. 192.168.40.0/24.

.PARAMETER RegisterTask
    Also register a scheduled task that runs this script with the same arguments at logon, so
    a new WSL address is picked up after every reboot.

.PARAMETER Remove
    Delete the port proxy rules, the firewall rules and the scheduled task made by this script.

.EXAMPLE
    .\wsl-portproxy.ps1 -ListenAddress 192.168.31.2 -RegisterTask

.EXAMPLE
    .\wsl-portproxy.ps1 -Remove
#>
#Requires -RunAsAdministrator
[CmdletBinding(DefaultParameterSetName = 'Add')]
param(
    [Parameter(ParameterSetName = 'Add', Mandatory = $true, Position = 0)]
    [Parameter(ParameterSetName = 'Remove', Position = 0)]
    [string] $ListenAddress,

    [ValidateRange(1, 65535)]
    [int[]] $Ports = @(8890, 8001, 8000, 8188, 9000),

    [string] $Distro = '',

    [Parameter(ParameterSetName = 'Add')]
    [string[]] $RemoteAddress = @('LocalSubnet'),

    [Parameter(ParameterSetName = 'Add')]
    [switch] $RegisterTask,

    [Parameter(ParameterSetName = 'Remove', Mandatory = $true)]
    [switch] $Remove
)

Set-StrictMode -Version 3.0
$ErrorActionPreference = 'Stop'

$RulePrefix = 'zotero-translate-wsl-'
$RuleGroup = 'zotero-translate WSL port proxy'
$TaskName = 'zotero-translate WSL port proxy'

function Get-Ipv4Bytes([string] $Text) {
    # The four octets of a dotted IPv4 address, or $null. (IPAddress.TryParse alone would
    # accept "1" as 0.0.0.1.)
    if ($Text -notmatch '^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$') { return $null }
    $address = $null
    if (-not [System.Net.IPAddress]::TryParse($Text, [ref] $address)) { return $null }
    return , $address.GetAddressBytes()
}

function Test-TailscaleAddress([byte[]] $Bytes) {
    return ($Bytes[0] -eq 100 -and $Bytes[1] -ge 64 -and $Bytes[1] -le 127)
}

function Assert-LanAddress([string] $Address) {
    # Same rule as deploy/k8s/check_ips.py: private LAN (RFC 1918) only, never Tailscale.
    $hint = 'use this PC''s LAN address: `ipconfig`, IPv4 Address of the Ethernet or Wi-Fi adapter'
    $bytes = Get-Ipv4Bytes $Address
    if ($null -eq $bytes) {
        throw "'$Address' is not an IPv4 address; $hint."
    }
    if (Test-TailscaleAddress $bytes) {
        throw ("$Address is a Tailscale address (CGNAT 100.64.0.0/10): cluster nodes are " +
            "not on the tailnet, so nothing would ever reach this proxy; $hint.")
    }
    $isPrivate = ($bytes[0] -eq 10) -or
        ($bytes[0] -eq 172 -and $bytes[1] -ge 16 -and $bytes[1] -le 31) -or
        ($bytes[0] -eq 192 -and $bytes[1] -eq 168)
    if (-not $isPrivate) {
        throw ("$Address is not a private LAN address (10.0.0.0/8, 172.16.0.0/12, " +
            "192.168.0.0/16); $hint.")
    }
    $mine = @(Get-NetIPAddress -AddressFamily IPv4 | ForEach-Object { $_.IPAddress })
    if ($mine -notcontains $Address) {
        throw ("$Address is not an address of this PC (it has: $($mine -join ', ')). " +
            "Did the DHCP lease change? $hint.")
    }
}

function Get-WslAddress {
    # The WSL VM's own IPv4 address. `hostname -I` lists every interface: skip loopback and a
    # tailscale0 address if Tailscale runs inside WSL; the first remaining one is eth0.
    $wslArgs = @()
    if ($Distro) { $wslArgs += @('--distribution', $Distro) }
    $wslArgs += @('--exec', 'hostname', '-I')
    $output = & wsl.exe @wslArgs
    if ($LASTEXITCODE -ne 0) {
        throw "``wsl.exe $($wslArgs -join ' ')`` failed (exit $LASTEXITCODE): is WSL installed?"
    }
    foreach ($token in (-split ($output -join ' '))) {
        $bytes = Get-Ipv4Bytes $token
        if ($null -eq $bytes -or $bytes[0] -eq 127 -or (Test-TailscaleAddress $bytes)) { continue }
        return $token
    }
    throw "``wsl hostname -I`` printed no usable IPv4 address: '$output'"
}

function Get-PortProxyRule {
    # Existing v4tov4 rules as 'listenaddress:port' -> 'connectaddress:port'. The table rows
    # are address/port pairs whatever the display language, so match their shape only.
    $rules = @{}
    foreach ($line in (netsh interface portproxy show v4tov4)) {
        if ($line -match '^\s*(\S+)\s+(\d+)\s+(\S+)\s+(\d+)\s*$') {
            $rules["$($Matches[1]):$($Matches[2])"] = "$($Matches[3]):$($Matches[4])"
        }
    }
    return $rules
}

function Invoke-Netsh([string[]] $Arguments) {
    $output = & netsh.exe @Arguments
    if ($LASTEXITCODE -ne 0) {
        throw "netsh $($Arguments -join ' ') failed: $output"
    }
}

function Assert-IpHelperRunning {
    # portproxy is implemented by the IP Helper service; rules do nothing while it is stopped.
    $service = Get-Service -Name iphlpsvc
    if ($service.StartType -eq 'Disabled') {
        Set-Service -Name iphlpsvc -StartupType Automatic
    }
    if ($service.Status -ne 'Running') {
        Write-Host 'starting the IP Helper service (iphlpsvc), which runs the port proxy'
        Start-Service -Name iphlpsvc
    }
}

function Add-Forwarding {
    Assert-LanAddress $ListenAddress
    Assert-IpHelperRunning
    $wslAddress = Get-WslAddress
    if ($wslAddress -eq $ListenAddress) {
        throw ("WSL reports the LAN address itself ($wslAddress): WSL runs in mirrored " +
            "networking mode, where its services are on the LAN already and a port proxy " +
            "would loop. Remove old rules with -Remove and open only the firewall.")
    }
    Write-Host "LAN $ListenAddress -> WSL $wslAddress"
    $existing = Get-PortProxyRule
    foreach ($port in $Ports) {
        $key = "${ListenAddress}:$port"
        $want = "${wslAddress}:$port"
        if ($existing[$key] -eq $want) {
            Write-Host "  portproxy $key -> $want (unchanged)"
        } else {
            if ($existing.ContainsKey($key)) {
                Invoke-Netsh @('interface', 'portproxy', 'delete', 'v4tov4',
                    "listenaddress=$ListenAddress", "listenport=$port")
            }
            Invoke-Netsh @('interface', 'portproxy', 'add', 'v4tov4',
                "listenaddress=$ListenAddress", "listenport=$port",
                "connectaddress=$wslAddress", "connectport=$port")
            Write-Host "  portproxy $key -> $want (set; was: $($existing[$key]))"
        }
        # Recreated every time so that a changed address or RemoteAddress always applies.
        $name = "$RulePrefix$port"
        Get-NetFirewallRule -Name $name -ErrorAction SilentlyContinue | Remove-NetFirewallRule
        $null = New-NetFirewallRule -Name $name -DisplayName "zotero-translate WSL port $port" `
            -Group $RuleGroup -Direction Inbound -Action Allow -Protocol TCP `
            -LocalAddress $ListenAddress -LocalPort $port -RemoteAddress $RemoteAddress `
            -Profile Any
        Write-Host "  firewall  ${name}: TCP $port from $($RemoteAddress -join ',')"
    }
    if ($RegisterTask) {
        Register-LogonTask
    }
}

function Register-LogonTask {
    # -Command, not -File: only a PowerShell command line can carry the [int[]] -Ports.
    $quoted = { param($text) "'" + ($text -replace "'", "''") + "'" }
    $command = "& $(& $quoted $PSCommandPath) -ListenAddress $ListenAddress" +
        " -Ports $($Ports -join ',')" +
        " -RemoteAddress $(($RemoteAddress | ForEach-Object { & $quoted $_ }) -join ',')"
    if ($Distro) { $command += " -Distro $(& $quoted $Distro)" }
    $action = New-ScheduledTaskAction -Execute 'powershell.exe' `
        -Argument "-NoProfile -ExecutionPolicy Bypass -Command `"$command`""
    $trigger = New-ScheduledTaskTrigger -AtLogOn
    $user = [Security.Principal.WindowsIdentity]::GetCurrent().Name
    $principal = New-ScheduledTaskPrincipal -UserId $user -LogonType Interactive -RunLevel Highest
    $null = Register-ScheduledTask -TaskName $TaskName -Action $action -Trigger $trigger `
        -Principal $principal -Force
    Write-Host "  task      '$TaskName' runs this script at every logon"
}

function Remove-Forwarding {
    if ($ListenAddress) {
        # Only the shape is checked here: removing must work even for a mistaken address.
        if ($null -eq (Get-Ipv4Bytes $ListenAddress)) {
            throw "'$ListenAddress' is not an IPv4 address."
        }
    }
    $existing = Get-PortProxyRule
    foreach ($key in @($existing.Keys)) {
        $address, $port = $key -split ':'
        if ($Ports -notcontains [int] $port) { continue }
        if ($ListenAddress -and $address -ne $ListenAddress) { continue }
        Invoke-Netsh @('interface', 'portproxy', 'delete', 'v4tov4',
            "listenaddress=$address", "listenport=$port")
        Write-Host "  portproxy $key removed"
    }
    foreach ($port in $Ports) {
        $rule = Get-NetFirewallRule -Name "$RulePrefix$port" -ErrorAction SilentlyContinue
        if ($rule) {
            $rule | Remove-NetFirewallRule
            Write-Host "  firewall  $RulePrefix$port removed"
        }
    }
    if (Get-ScheduledTask -TaskName $TaskName -ErrorAction SilentlyContinue) {
        Unregister-ScheduledTask -TaskName $TaskName -Confirm:$false
        Write-Host "  task      '$TaskName' removed"
    }
}

if ($Remove) {
    Remove-Forwarding
} else {
    Add-Forwarding
}
